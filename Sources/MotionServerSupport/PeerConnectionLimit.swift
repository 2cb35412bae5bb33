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
/// which frees their slot at once. Every connection from this machine, whatever its address, is
/// one peer (``peer(of:at:)``).
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
  /// dashboard proves a connection as soon as a request head with the access token is decoded on
  /// it, before any task runs for it; the Sensor Logger receiver once a push on it is accepted)
  /// instead of being refused. Every local user is the same peer (``localPeer``), so without this another
  /// user could hold all of the owner's slots with idle connections and lock the owner out; now
  /// such connections give way to the owner's, which prove themselves on their first request.
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

  /// The peer whose slots a connection from `remote` to the server's `local` address takes: its
  /// IP address, except that every connection from this machine is the one peer ``localPeer``.
  ///
  /// Linux routes all of 127.0.0.0/8 to the loopback and lets a process connect from any of the
  /// machine's own addresses, so counting such connections by address gave any local user as
  /// many shares as they cared to pick addresses (127.0.0.2, 127.0.0.3, …): eight of them held
  /// the dashboard's 128 connections, and the owner's waited in the listen queue. A connection is
  /// from this machine when it comes from a loopback address (127/8, `::1`, or either mapped into
  /// IPv6), when it arrives at one (nothing else can reach it), or when it comes from the very
  /// address it arrives at. An IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`, on a dual-stack
  /// listener) counts as the IPv4 address. Other IPv6 addresses are not grouped by prefix: the
  /// hosts of one LAN share a /64, so the phone would share its slots with every other host.
  /// A connection without an IP address (a Unix socket) is one peer of its own kind.
  package static func peer(of remote: SocketAddress?, at local: SocketAddress?) -> String {
    guard let remote = remote.flatMap(PeerAddress.init) else { return "unknown" }
    if remote.isLoopback { return localPeer }
    if let local = local.flatMap(PeerAddress.init), local.isLoopback || local == remote {
      return localPeer
    }
    return remote.text
  }

  /// The one peer of every connection from this machine (see ``peer(of:at:)``).
  package static let localPeer = "local"

  /// An IP address reduced to what ``peer(of:at:)`` compares: IPv4 mapped into IPv6 as IPv4.
  private struct PeerAddress: Equatable {
    /// The address's bytes, 4 for IPv4 and 16 for IPv6.
    let bytes: [UInt8]
    let text: String

    init?(_ address: SocketAddress) {
      switch address {
      case .v4(let v4):
        bytes = withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        text = address.ipAddress ?? bytes.map(String.init).joined(separator: ".")
      case .v6(let v6):
        let all = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        if all.prefix(10).allSatisfy({ $0 == 0 }) && all[10] == 0xff && all[11] == 0xff {
          bytes = Array(all.suffix(4))
          text = bytes.map(String.init).joined(separator: ".")
        } else {
          bytes = all
          guard let shown = address.ipAddress else { return nil }
          text = shown
        }
      default:
        return nil
      }
    }

    var isLoopback: Bool {
      bytes.count == 4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
    }
  }

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
      let peer = PeerConnectionLimit.peer(
        of: context.channel.remoteAddress, at: context.channel.localAddress)
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
