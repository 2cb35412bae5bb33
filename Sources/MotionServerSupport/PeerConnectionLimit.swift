// SPDX-License-Identifier: Apache-2.0

import MotionConcurrency
import NIOCore

/// A cap on the connections one peer address holds at once on a server that caps its connections
/// in total.
///
/// Such a server serves at most so many connections at a time, and a connection holds its slot
/// from the moment it is accepted, before it sends anything, so no token or password can help:
/// one host that opened that many connections and sent nothing (or a request now and then) kept
/// every other client out for as long as it cared to reopen them. With this cap a peer address
/// gets ``limit`` connections; its further connections are closed as soon as they are accepted,
/// which frees their slot at once.
///
/// Used by the dashboard (MotionDashboard) and the Sensor Logger receiver (PhoneStreams), which
/// report the refusals each in its own way: `onRefusalDue` gets the running total the first time
/// and each time it reaches a power of ten.
package final class PeerConnectionLimit: Sendable {
  private struct State {
    var counts: [String: Int] = [:]
    var refusals = PowerOfTenReports()
  }

  /// The most connections one peer address holds at once (at least 1).
  package let limit: Int
  private let state = Locked(State())
  private let onRefusalDue: @Sendable (_ total: Int) -> Void

  /// `onRefusalDue` is called on an event loop, outside the limit's lock.
  package init(limit: Int, onRefusalDue: @escaping @Sendable (_ total: Int) -> Void) {
    self.limit = max(1, limit)
    self.onRefusalDue = onRefusalDue
  }

  /// Takes a slot for `peer`; false (and the refusal counted) when the peer already holds the
  /// limit.
  package func admit(_ peer: String) -> Bool {
    let (admitted, due) = state.withLock { state -> (Bool, Int?) in
      let held = state.counts[peer, default: 0]
      guard held < limit else { return (false, state.refusals.count()) }
      state.counts[peer] = held + 1
      return (true, nil)
    }
    if let due { onRefusalDue(due) }
    return admitted
  }

  /// Gives back a slot of `peer`.
  package func release(_ peer: String) {
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
  package var refusedCount: Int { state.withLock { $0.refusals.total } }

  /// The number of peer addresses holding connections.
  package var peerCount: Int { state.withLock { $0.counts.count } }

  /// One per connection, ahead of the handlers that parse anything: admits the connection when it
  /// becomes active or closes it, and gives its slot back when it closes or the handler is
  /// removed. `Part` is whatever flows through the pipeline at its position; it passes untouched.
  ///
  /// Used on its channel's event loop only (NIO's handler contract).
  package final class Handler<Part>: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = Part
    package typealias InboundOut = Part

    private let limit: PeerConnectionLimit
    private var admittedPeer: String?
    private var isRefused = false

    package init(_ limit: PeerConnectionLimit) {
      self.limit = limit
    }

    package func handlerAdded(context: ChannelHandlerContext) {
      if context.channel.isActive { admit(context: context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
      releaseSlot()
    }

    package func channelActive(context: ChannelHandlerContext) {
      admit(context: context)
      // A refused connection is already closed (its inactivity went down the pipeline during
      // the close): the handlers after this one never see it active.
      guard !isRefused else { return }
      context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
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
