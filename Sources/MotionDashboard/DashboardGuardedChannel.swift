// SPDX-License-Identifier: Apache-2.0

import HummingbirdCore
import HummingbirdWebSocket
import Logging
import MotionServerSupport
import NIOCore

/// Hummingbird's HTTP/1 + WebSocket child channel with a `PeerConnectionLimit` handler and a
/// ``DashboardConnectionGuard`` first in every connection's pipeline (Hummingbird offers no hook
/// ahead of the HTTP upgrade handler).
struct DashboardGuardedChannel: ServerChildChannel {
  typealias Value = HTTP1WebSocketUpgradeChannel.Value

  let inner: HTTP1WebSocketUpgradeChannel
  let limits: DashboardConnectionLimits
  /// Shared by every connection of the server.
  let peerLimit: PeerConnectionLimit

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    let limits = self.limits
    let peerLimit = self.peerLimit
    return channel.eventLoop.makeCompletedFuture {
      try channel.pipeline.syncOperations.addHandler(
        DashboardConnectionGuard(limits: limits, logger: logger), position: .first)
      // Ahead of the guard: a connection beyond its peer's share is closed before anything else.
      try channel.pipeline.syncOperations.addHandler(
        PeerConnectionLimit.Handler<ByteBuffer>(peerLimit), position: .first)
    }.flatMap { [inner] in
      inner.setup(channel: channel, logger: logger)
    }
  }

  func handle(value: Value, logger: Logger) async {
    await inner.handle(value: value, logger: logger)
  }
}
