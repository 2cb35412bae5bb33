// SPDX-License-Identifier: Apache-2.0

import HummingbirdCore
import MotionSensors
import NIOCore

/// The Sensor Logger receiver's cap on the connections one peer address holds at once.
///
/// The receiver serves at most ``SensorLoggerReceiver/Configuration/maximumConnections`` at a
/// time, and a connection holds its slot from the moment it is accepted, before it sends anything
/// (so the token cannot help). One machine that opened that many connections and sent nothing
/// kept the phone out for as long as it cared to reopen them. With this cap a peer address gets
/// ``SensorLoggerReceiver/Configuration/maximumConnectionsPerPeer``; its further connections are
/// closed as soon as they are accepted, which frees their slot at once.
final class SensorLoggerPeerLimit: Sendable {
  private let limit: Int
  private let counts = Locked<[String: Int]>([:])
  private let onRefusal: @Sendable () -> Void

  /// `onRefusal` is called (on an event loop) for each connection closed for its peer's excess.
  init(limit: Int, onRefusal: @escaping @Sendable () -> Void) {
    self.limit = max(1, limit)
    self.onRefusal = onRefusal
  }

  /// Takes a slot for `peer`; false when the peer already holds the limit.
  func admit(_ peer: String) -> Bool {
    counts.withLock { counts in
      let held = counts[peer, default: 0]
      guard held < limit else { return false }
      counts[peer] = held + 1
      return true
    }
  }

  /// Gives back a slot of `peer`.
  func release(_ peer: String) {
    counts.withLock { counts in
      let held = counts[peer, default: 0]
      if held <= 1 { counts.removeValue(forKey: peer) } else { counts[peer] = held - 1 }
    }
  }

  /// The number of peer addresses holding connections (for tests).
  var peerCount: Int { counts.withLock { $0.count } }

  /// One per connection, first in its pipeline's added handlers: admits the connection when it
  /// becomes active or closes it, and gives its slot back when it closes.
  ///
  /// Used on its channel's event loop only (NIO's handler contract).
  final class Handler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPConnectionStateHandler.InboundIn
    typealias InboundOut = HTTPConnectionStateHandler.InboundIn

    private let limit: SensorLoggerPeerLimit
    private var admittedPeer: String?

    init(_ limit: SensorLoggerPeerLimit) {
      self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
      if context.channel.isActive { admit(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
      admit(context: context)
      context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
      if let peer = admittedPeer {
        admittedPeer = nil
        limit.release(peer)
      }
      context.fireChannelInactive()
    }

    private func admit(context: ChannelHandlerContext) {
      guard admittedPeer == nil else { return }
      // A connection without an IP address (a Unix socket) is one peer of its own kind.
      let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
      if limit.admit(peer) {
        admittedPeer = peer
      } else {
        limit.onRefusal()
        context.close(promise: nil)
      }
    }
  }
}
