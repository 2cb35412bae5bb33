// SPDX-License-Identifier: Apache-2.0

import HummingbirdCore
import HummingbirdWebSocket
import Logging
import MotionServerSupport
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 + WebSocket child channel with a `PeerConnectionLimit` handler and a
/// ``DashboardConnectionGuard`` first in every connection's pipeline and, with a token, a
/// ``DashboardEarlyProof`` right after the HTTP request decoder (Hummingbird offers no hook
/// ahead of the HTTP upgrade handler: its `additionalChannelHandlers` come after it, and never
/// see a WebSocket upgrade's request).
struct DashboardGuardedChannel: ServerChildChannel {
  typealias Value = HTTP1WebSocketUpgradeChannel.Value

  let inner: HTTP1WebSocketUpgradeChannel
  let limits: DashboardConnectionLimits
  /// Shared by every connection of the server.
  let peerLimit: PeerConnectionLimit
  /// The access token, if any: requests that carry it prove their connection to `peerLimit`.
  let token: String?
  /// Shared by every connection of the server: ends them when the server stops.
  let drain: ServerDrain

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    let limits = self.limits
    let peerLimit = self.peerLimit
    let drain = self.drain
    return channel.eventLoop.makeCompletedFuture {
      try channel.pipeline.syncOperations.addHandler(
        DashboardConnectionGuard(limits: limits, logger: logger), position: .first)
      try channel.pipeline.syncOperations.addHandler(
        ServerDrain.Handler<ByteBuffer>(drain), position: .first)
      // Ahead of the guard: a connection beyond its peer's share is closed before anything else.
      try channel.pipeline.syncOperations.addHandler(
        PeerConnectionLimit.Handler<ByteBuffer>(peerLimit), position: .first)
    }.flatMap { [inner, token] in
      inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
        // Proofs matter only where unproven connections give way. The decoder is looked up
        // by type because the inner setup adds it; should a Hummingbird update stop doing so,
        // the access middleware still proves the connection, only later
        // (DashboardBusyPoolTests notices).
        guard let token, peerLimit.evictsUnprovenConnections,
          let decoder = try? channel.pipeline.syncOperations.handler(
            type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        else { return value }
        try channel.pipeline.syncOperations.addHandler(
          DashboardEarlyProof(token: token, peerLimit: peerLimit), position: .after(decoder))
        return value
      }
    }
  }

  func handle(value: Value, logger: Logger) async {
    await inner.handle(value: value, logger: logger)
  }
}
