// SPDX-License-Identifier: Apache-2.0

import Logging
import MotionSensors
import NIOCore

/// The dashboard's cap on the connections one peer address holds at once.
///
/// The server serves at most ``DashboardConnectionLimits/maximumConnections`` at a time, and a
/// connection holds its slot from the moment it is accepted, before it sends anything (so the
/// token cannot help). One host without the token that opened that many connections, sent a
/// request now and then, kept every page out of an exposed dashboard. With this cap a peer
/// address gets ``DashboardConnectionLimits/maximumConnectionsPerPeer``; its further connections
/// are closed as soon as they are accepted, which frees their slot at once. Closures are logged
/// (a warning) the first time and each time their total reaches a power of ten.
///
/// The same mechanism as the Sensor Logger receiver's `SensorLoggerPeerLimit` (PhoneStreams),
/// which this module cannot import (it does not depend on PhoneStreams, a trait-dependent
/// module).
final class DashboardPeerLimit: Sendable {
  private struct State {
    var counts: [String: Int] = [:]
    var refused = 0
    var nextReport = 1
  }

  /// The most connections one peer address holds at once (at least 1).
  let limit: Int
  private let state = Locked(State())
  private let logger: Logger

  init(limit: Int, logger: Logger) {
    self.limit = max(1, limit)
    self.logger = logger
  }

  /// Takes a slot for `peer`; false (and the refusal counted) when the peer already holds the
  /// limit.
  func admit(_ peer: String) -> Bool {
    let (admitted, report) = state.withLock { state -> (Bool, Int?) in
      let held = state.counts[peer, default: 0]
      guard held < limit else {
        state.refused = state.refused == Int.max ? Int.max : state.refused + 1
        guard state.refused >= state.nextReport else { return (false, nil) }
        state.nextReport =
          state.nextReport > Int.max / 10 ? Int.max : state.nextReport * 10
        return (false, state.refused)
      }
      state.counts[peer] = held + 1
      return (true, nil)
    }
    if let report {
      logger.warning(
        "\(report) dashboard connection(s) so far were closed on arrival because their address already held \(limit) connections"
      )
    }
    return admitted
  }

  /// Gives back a slot of `peer`.
  func release(_ peer: String) {
    state.withLock { state in
      let held = state.counts[peer, default: 0]
      if held <= 1 {
        state.counts.removeValue(forKey: peer)
      } else {
        state.counts[peer] = held - 1
      }
    }
  }

  /// Connections closed for their peer's excess so far.
  var refusedCount: Int { state.withLock { $0.refused } }

  /// The number of peer addresses holding connections.
  var peerCount: Int { state.withLock { $0.counts.count } }

  /// One per connection, first in its pipeline: admits the connection when it becomes active or
  /// closes it, and gives its slot back when it closes.
  ///
  /// Used on its channel's event loop only (NIO's handler contract).
  final class Handler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let limit: DashboardPeerLimit
    private var admittedPeer: String?
    private var isRefused = false

    init(_ limit: DashboardPeerLimit) {
      self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
      if context.channel.isActive { admit(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
      releaseSlot()
    }

    func channelActive(context: ChannelHandlerContext) {
      admit(context: context)
      context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
      releaseSlot()
      context.fireChannelInactive()
    }

    private func releaseSlot() {
      if let peer = admittedPeer {
        admittedPeer = nil
        limit.release(peer)
      }
    }

    private func admit(context: ChannelHandlerContext) {
      guard admittedPeer == nil, !isRefused else { return }
      // A connection without an IP address (a Unix socket) is one peer of its own kind.
      let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
      if limit.admit(peer) {
        admittedPeer = peer
      } else {
        isRefused = true
        context.close(promise: nil)
      }
    }
  }
}
