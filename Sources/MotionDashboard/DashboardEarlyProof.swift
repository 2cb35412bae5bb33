// SPDX-License-Identifier: Apache-2.0

import Hummingbird
import HummingbirdCore
import MotionSensors
import MotionServerSupport
import NIOCore
import NIOHTTP1

/// Proves a connection to its `PeerConnectionLimit` as soon as its first request head is decoded,
/// when that head carries the access token (read as ``DashboardAccessMiddleware`` reads it).
///
/// The middleware proves a connection only once Hummingbird's task for it has got a thread of
/// Swift concurrency's shared pool and run the router; until then the connection is unproven and
/// gives way to newer ones from its peer, and every connection from this machine is one peer. So
/// any local user who opened a peer's share of connections in that window (wider the busier the
/// pool) closed the owner's fresh page load or WebSocket upgrade. This handler sits right after
/// the HTTP request decoder and proves the connection on its event loop, before any task runs.
/// It decides nothing: the middleware still answers a request without the token with 401.
///
/// Only the first head counts: a connection whose first request lacks the token is closed after
/// its answer, and one whose first request carried it is proven for good. The handler then
/// leaves the pipeline, ahead of a WebSocket upgrade (after which no HTTP parts flow here).
///
/// Used on its channel's event loop only (NIO's handler contract).
final class DashboardEarlyProof: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias InboundOut = HTTPServerRequestPart

  private let token: String
  private let peerLimit: PeerConnectionLimit

  init(token: String, peerLimit: PeerConnectionLimit) {
    self.token = token
    self.peerLimit = peerLimit
  }

  /// How many connections so far were proven by their request head (in this process), so that a
  /// test can tell that a head was handled while no task could run.
  static var provenCount: Int { proven.withLock { $0 } }

  private static let proven = Locked(0)

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard case .head(let head) = unwrapInboundIn(data) else {
      context.fireChannelRead(data)
      return
    }
    let given = DashboardAccessMiddleware.givenToken(
      uri: URI(head.uri), cookieHeaders: head.headers["cookie"])
    if let given, DashboardAccessMiddleware.constantTimeEqual(given.value, token) {
      peerLimit.prove(ObjectIdentifier(context.channel))
      Self.proven.withLock { $0 += 1 }
    }
    context.fireChannelRead(data)
    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
  }
}
