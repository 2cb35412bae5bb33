// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Hands events to a set of subscribers: in the order they subscribed, one event at a time, and
/// never to a subscriber after its removal has returned.
///
/// The one implementation of that promise for the sources, the device-motion pipeline, the event
/// recognisers and `UIDevice`; it lives in MotionConcurrency, the lowest module that needs it
/// (MotionRecognition, which depends on MotionMath only, shares it with the sources).
///
/// Delivery holds a recursive lock, and ``remove(_:)`` takes it too, so a removal from another
/// thread waits for the event being delivered, and a handler may remove itself (or another
/// subscriber) while it runs: the removed subscriber is skipped for the rest of that delivery.
///
/// Handlers run on the thread that calls ``deliver(_:)``, with the lock held: a handler that blocks
/// on another thread removing a subscriber would deadlock, as with any synchronous callback.
///
/// `public`, with `package` members, for the reason ``Locked`` is: so that its inlinable members
/// are specialised in the modules that call them.
public final class SubscriberFanOut<Event>: Sendable {
  /// A subscriber's handler.
  public typealias Handler = @Sendable (Event) -> Void

  // `deliver(_:)` and `isEmpty` run for every sample of every source: they are inlinable (and
  // what they touch usable from inline code) so that each client module gets them specialised
  // for its event type instead of looking up generic metadata at run time on every call.
  @usableFromInline struct State {
    /// In subscription order (ids only grow).
    @usableFromInline var subscribers: [(id: UInt64, handler: Handler)] = []
    @usableFromInline var nextID: UInt64 = 0
  }

  @usableFromInline let state = Locked(State())
  /// Held while events are handed out; see the type's documentation.
  @usableFromInline let deliveryLock = NSRecursiveLock()

  package init() {}

  /// Adds `handler` after the existing subscribers; returns the id for ``remove(_:)``.
  @discardableResult
  package func add(_ handler: @escaping Handler) -> UInt64 {
    state.withLock { s in
      s.nextID += 1
      s.subscribers.append((s.nextID, handler))
      return s.nextID
    }
  }

  /// Removes subscriber `id`; when this returns its handler is not running (on another thread) and
  /// will not be called again. Returns whether the fan-out is now empty. Removing twice is
  /// harmless.
  @discardableResult
  package func remove(_ id: UInt64) -> Bool {
    deliveryLock.lock()
    defer { deliveryLock.unlock() }
    return state.withLock { s in
      s.subscribers.removeAll { $0.id == id }
      return s.subscribers.isEmpty
    }
  }

  /// Removes every subscriber (with the guarantee of ``remove(_:)``) and returns their handlers in
  /// subscription order, for a last event such as "finished".
  package func removeAll() -> [Handler] {
    deliveryLock.lock()
    defer { deliveryLock.unlock() }
    return state.withLock { s in
      defer { s.subscribers.removeAll() }
      return s.subscribers.map(\.handler)
    }
  }

  /// Whether no one is subscribed.
  @inlinable package var isEmpty: Bool { state.withLock { $0.subscribers.isEmpty } }

  /// How many are subscribed.
  package var count: Int { state.withLock { $0.subscribers.count } }

  /// Calls every subscriber with `event`, in subscription order. Subscribers added during the call
  /// first see the next event; subscribers removed during it are skipped.
  @inlinable package func deliver(_ event: Event) {
    deliveryLock.lock()
    defer { deliveryLock.unlock() }
    // The array itself, not a copy of its ids: taking it only retains its storage, so a delivery
    // allocates nothing (a handler that adds or removes a subscriber makes the copy, rarely).
    let snapshot = state.withLock { $0.subscribers }
    for index in snapshot.indices {
      let subscriber = snapshot[index]
      // Only a handler of this very delivery can have removed a later subscriber: a removal on
      // another thread waits for the delivery lock. So the first one needs no look-up.
      if index > 0 {
        let isSubscribed = state.withLock { s in s.subscribers.contains { $0.id == subscriber.id } }
        guard isSubscribed else { continue }
      }
      subscriber.handler(event)
    }
  }

  /// Calls every subscriber with each of `events` in turn (all subscribers see the first event
  /// before any sees the second). Inlinable like the single-event `deliver`: unspecialised, it
  /// called the generic single delivery for every sample of an IIO read round.
  @inlinable package func deliver(_ events: some Sequence<Event>) {
    deliveryLock.lock()
    defer { deliveryLock.unlock() }
    for event in events { deliver(event) }
  }

  /// Runs `body` holding the delivery lock: no handler runs on another thread meanwhile, and no
  /// removal completes. For owners whose own state must change atomically with delivery.
  package func withDeliveryLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    deliveryLock.lock()
    defer { deliveryLock.unlock() }
    return try body()
  }
}
