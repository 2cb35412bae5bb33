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
  /// A connection's hold on one of its peer's slots, from ``admit(_:key:evict:)`` to
  /// ``release(_:)``.
  package struct Slot: Sendable, Hashable {
    package let peer: String
    fileprivate let id: UInt64
  }

  private struct Holder {
    let id: UInt64
    let key: ObjectIdentifier?
    /// Whether the connection has shown it belongs to a legitimate client (``prove(_:)``).
    var isProven = false
    let evict: (@Sendable () -> Void)?
  }

  private struct State {
    /// Each peer's connections, oldest first.
    var holders: [String: [Holder]] = [:]
    /// The slot of each connection by its key (its channel), for ``prove(_:)``.
    var slots: [ObjectIdentifier: Slot] = [:]
    var nextID: UInt64 = 0
    var refusals = PowerOfTenReports()
    var evictions = PowerOfTenReports()
  }

  /// The most connections one peer address holds at once (at least 1).
  package let limit: Int
  /// Whether a peer at its limit makes room by closing its oldest connection that has not
  /// proven itself (see ``init(limit:evictsUnprovenConnections:onRefusalDue:)``).
  package let evictsUnprovenConnections: Bool
  private let state = Locked(State())
  private let onRefusalDue: @Sendable (_ total: Int) -> Void
  private let onEvictionDue: @Sendable (_ total: Int) -> Void

  /// `onRefusalDue` and `onEvictionDue` are called on an event loop, outside the limit's lock,
  /// with the running totals of refused and of evicted connections, the first time and each
  /// time one reaches a power of ten (many evictions mean a flood of connections).
  ///
  /// With `evictsUnprovenConnections`, a connection that arrives while its peer holds the limit
  /// closes the peer's oldest connection that has not proven itself (``prove(_:)``: the
  /// dashboard proves a connection when a request on it carries the access token) instead of
  /// being refused. On loopback every local user is the same peer, 127.0.0.1, so without this
  /// another user could hold all of the owner's slots with idle connections and lock the owner
  /// out; now such connections give way to the owner's, which prove themselves on their first
  /// request.
  package init(
    limit: Int, evictsUnprovenConnections: Bool = false,
    onEvictionDue: @escaping @Sendable (_ total: Int) -> Void = { _ in },
    onRefusalDue: @escaping @Sendable (_ total: Int) -> Void
  ) {
    self.limit = max(1, limit)
    self.evictsUnprovenConnections = evictsUnprovenConnections
    self.onEvictionDue = onEvictionDue
    self.onRefusalDue = onRefusalDue
  }

  /// Takes a slot for a connection of `peer`; `nil` (and the refusal counted) when the peer holds
  /// the limit and none of its connections gives way. `key` identifies the connection for
  /// ``prove(_:)``; `evict` closes it, should it give way to a later one.
  package func admit(
    _ peer: String, key: ObjectIdentifier? = nil, evict: (@Sendable () -> Void)? = nil
  ) -> Slot? {
    let (slot, evicted, refusalDue, evictionDue) = state.withLock {
      state -> (Slot?, (@Sendable () -> Void)?, Int?, Int?) in
      var held = state.holders[peer, default: []]
      var evicted: (@Sendable () -> Void)?
      var evictionDue: Int?
      if held.count >= limit {
        guard evictsUnprovenConnections, let oldest = held.firstIndex(where: { !$0.isProven })
        else { return (nil, nil, state.refusals.count(), nil) }
        let gone = held.remove(at: oldest)
        if let key = gone.key { state.slots[key] = nil }
        evictionDue = state.evictions.count()
        evicted = gone.evict
      }
      state.nextID += 1
      let slot = Slot(peer: peer, id: state.nextID)
      held.append(Holder(id: slot.id, key: key, evict: evict))
      state.holders[peer] = held
      if let key { state.slots[key] = slot }
      return (slot, evicted, nil, evictionDue)
    }
    if let refusalDue { onRefusalDue(refusalDue) }
    if let evictionDue { onEvictionDue(evictionDue) }
    evicted?()
    return slot
  }

  /// Marks the connection with `key` as a legitimate client's: it no longer gives way.
  package func prove(_ key: ObjectIdentifier) {
    state.withLock { state in
      guard let slot = state.slots[key], var held = state.holders[slot.peer],
        let index = held.firstIndex(where: { $0.id == slot.id })
      else { return }
      held[index].isProven = true
      state.holders[slot.peer] = held
    }
  }

  /// Gives back `slot` (nothing if its connection already gave way).
  package func release(_ slot: Slot) {
    state.withLock { state in
      guard var held = state.holders[slot.peer],
        let index = held.firstIndex(where: { $0.id == slot.id })
      else { return }
      let gone = held.remove(at: index)
      if let key = gone.key { state.slots[key] = nil }
      state.holders[slot.peer] = held.isEmpty ? nil : held
    }
  }

  /// Connections closed for their peer's excess so far.
  package var refusedCount: Int { state.withLock { $0.refusals.total } }

  /// Unproven connections closed to make room for a later one of their peer so far.
  package var evictedCount: Int { state.withLock { $0.evictions.total } }

  /// The number of peer addresses holding connections.
  package var peerCount: Int { state.withLock { $0.holders.count } }

  /// One per connection, ahead of the handlers that parse anything: admits the connection when it
  /// becomes active or closes it, and gives its slot back when it closes or the handler is
  /// removed. `Part` is whatever flows through the pipeline at its position; it passes untouched.
  ///
  /// Used on its channel's event loop only (NIO's handler contract).
  package final class Handler<Part>: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = Part
    package typealias InboundOut = Part

    private let limit: PeerConnectionLimit
    private var slot: Slot?
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
      if let slot {
        self.slot = nil
        limit.release(slot)
      }
    }

    private func admit(context: ChannelHandlerContext) {
      guard slot == nil, !isRefused else { return }
      // A connection without an IP address (a Unix socket) is one peer of its own kind.
      let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
      let channel = context.channel
      if let slot = limit.admit(
        peer, key: ObjectIdentifier(channel), evict: { channel.close(promise: nil) })
      {
        self.slot = slot
      } else {
        isRefused = true
        context.close(promise: nil)
      }
    }
  }
}
