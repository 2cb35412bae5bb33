// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import Logging
import MotionSensors
import PhoneStreamDecoding

/// The subscriber bookkeeping, worker lifecycle and serial delivery shared by the phone-stream
/// sources.
///
/// A hub starts its owner's network worker when the first subscriber arrives and stops it when the
/// last one cancels, so one connection or listener serves every subscriber. Events are handed over
/// on a private serial queue: the network tasks never wait for a subscriber, and a subscriber never
/// runs concurrently with itself. Stopping waits for the worker at most ``stopTimeout`` seconds, so
/// a peer that never reads or never answers cannot hang `cancel()`.
///
/// What waits for a slow subscriber is bounded: at most ``maximumPendingEvents`` events are queued
/// (one delivery task at a time drains them); beyond that the oldest queued events are dropped
/// and counted (``droppedEventCount``), so a subscriber that falls behind gets the newest
/// readings when it catches up, and the network tasks' memory does not grow with its delay. The
/// first drop is logged as a warning, and subscribers get an advisory failure the first time and
/// each time the total reaches a power of ten (ahead of the events that follow the drops; when
/// several such totals are reached before the subscriber catches up, the latest).
///
/// `@unchecked Sendable`: `subscribers` and the pending events are guarded by `state` (a lock),
/// `isRunning`, `worker` and `failedStartCoverage` by `lifecycleLock`; handlers run only on `queue`
/// while `deliveryLock` is held.
final class LiveSourceHub: @unchecked Sendable {
  typealias Handler = @Sendable (SourceEvent) -> Void

  private struct State {
    var subscribers: [UInt64: Handler] = [:]
    var nextID: UInt64 = 0
    /// Events waiting for delivery, oldest first.
    var pending = FIFOQueue<SourceEvent>()
    /// Whether a delivery task is queued or running (it drains `pending` until it is empty).
    var isDraining = false
    var droppedEvents = 0
    var dropReports = PowerOfTenReports()
    /// The drop total to report ahead of the next events delivered, if one is due (kept apart
    /// from `pending`, where newer drops would drop the notice too).
    var dueDropReport: Int?

    /// Appends `events`, dropping the oldest beyond `capacity`; returns whether this was the
    /// first drop.
    mutating func enqueue(_ events: [SourceEvent], capacity: Int) -> Bool {
      let droppedBefore = droppedEvents
      for event in events {
        if pending.count >= capacity {
          _ = pending.popFirst()
          droppedEvents = droppedEvents == Int.max ? Int.max : droppedEvents + 1
          if dropReports.isDue(total: droppedEvents) { dueDropReport = droppedEvents }
        }
        pending.append(event)
      }
      return droppedBefore == 0 && droppedEvents > 0
    }

    /// Takes every pending event, oldest first, and the drop total due a report.
    mutating func takePending() -> (events: [SourceEvent], dropReport: Int?) {
      var taken: [SourceEvent] = []
      taken.reserveCapacity(pending.count)
      while let event = pending.popFirst() { taken.append(event) }
      defer { dueDropReport = nil }
      return (taken, dueDropReport)
    }
  }

  /// The default of ``maximumPendingEvents``: 16 384, about six seconds of a phone streaming five
  /// sensors at 500 Hz (a few MB), far more than a subscriber that keeps up ever has waiting.
  static let defaultMaximumPendingEvents = 16_384

  /// The longest `cancel()` of the last subscriber waits for the network worker to finish.
  static let stopTimeout = 3.0

  private let state = Locked(State())
  /// Held while handlers run, so that a cancelled subscription is never called once `cancel()` has
  /// returned. Recursive: a handler may cancel its own subscription.
  private let deliveryLock = NSRecursiveLock()
  /// Serialises start and stop of the network worker, and guards `isRunning` and `worker`.
  private let lifecycleLock = NSLock()
  private var isRunning = false
  private var worker: PhoneStreamWorker?
  /// After a failed start, the highest subscriber id that was subscribed when it failed (and so is
  /// told of it); `nil` while no start has failed since the worker last stopped.
  private var failedStartCoverage: UInt64?
  private let queue: DispatchQueue
  private let failureLabel: String
  private let startWorker: @Sendable () throws -> PhoneStreamWorker?
  private let didStop: @Sendable () -> Void
  /// The most events queued for delivery; see the type's description.
  let maximumPendingEvents: Int
  private let logger: Logger

  /// Creates a hub for the source called `failureLabel` in failure messages.
  ///
  /// `startWorker` opens the owner's connection and returns its running worker (or `nil` when the
  /// owner is gone); if it throws, subscribers get the error as a failure (a ``SourceFailure`` as
  /// is, anything else as `.other`), and each later subscriber makes another attempt (whose
  /// failure goes to the subscribers that had not been told yet).
  /// `didStop` (default: nothing) runs after the worker has been stopped.
  /// `maximumPendingEvents` (at least 1) bounds the events waiting for slow subscribers.
  init(
    name: String, failureLabel: String,
    maximumPendingEvents: Int = LiveSourceHub.defaultMaximumPendingEvents,
    startWorker: @escaping @Sendable () throws -> PhoneStreamWorker?,
    didStop: @escaping @Sendable () -> Void = {}
  ) {
    self.queue = DispatchQueue(label: "OpenCoreMotion.\(name).delivery")
    self.failureLabel = failureLabel
    self.maximumPendingEvents = max(1, maximumPendingEvents)
    self.startWorker = startWorker
    self.didStop = didStop
    self.logger = Logger(label: "OpenCoreMotion.\(name)")
  }

  /// Events dropped so far because subscribers did not keep up.
  var droppedEventCount: Int { state.withLock { $0.droppedEvents } }

  /// Events waiting for delivery now (at most ``maximumPendingEvents``).
  var pendingEventCount: Int { state.withLock { $0.pending.count } }

  /// Whether anyone is subscribed.
  var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

  /// Adds a subscriber (starting the worker if it is the first).
  func subscribe(_ handler: @escaping Handler) -> SourceSubscription {
    let id = state.withLock { s -> UInt64 in
      s.nextID += 1
      s.subscribers[s.nextID] = handler
      return s.nextID
    }
    updateLifecycle()
    return SourceSubscription { [weak self] in self?.unsubscribe(id) }
  }

  private func unsubscribe(_ id: UInt64) {
    deliveryLock.lock()
    state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
    deliveryLock.unlock()
    updateLifecycle()
  }

  private func updateLifecycle() {
    lifecycleLock.lock()
    defer { lifecycleLock.unlock() }
    let (wanted, newestID) = state.withLock { s in (!s.subscribers.isEmpty, s.nextID) }
    // A subscriber that arrived after a failed start tries again (the port may be free by now):
    // without that it would get neither events nor the failure, for as long as anyone (the
    // in-process motion history, say) stays subscribed.
    let retriesFailedStart = failedStartCoverage.map { newestID > $0 } ?? false
    if wanted && (!isRunning || retriesFailedStart) {
      isRunning = true
      let failure: SourceFailure
      do {
        worker = try startWorker()
        failedStartCoverage = nil
        return
      } catch let error as SourceFailure {
        failure = error
      } catch {
        failure = SourceFailure(.other, "\(failureLabel): \(error)")
      }
      // A retry's failure only to those not yet told, once each.
      let alreadyTold = retriesFailedStart ? failedStartCoverage : nil
      failedStartCoverage = newestID
      if let alreadyTold {
        deliver(failure, toSubscribersIn: (alreadyTold + 1)...newestID)
      } else {
        deliver(.failure(failure))
      }
    } else if !wanted && isRunning {
      isRunning = false
      failedStartCoverage = nil
      // Bounded: the worker's tasks only hand events to `queue`, and the wait has a deadline.
      worker?.stop(timeout: Self.stopTimeout)
      worker = nil
      didStop()
    }
  }

  /// Hands `failure` to the subscribers whose id is in `ids` (on `queue`, after the delivery task
  /// queued so far).
  private func deliver(_ failure: SourceFailure, toSubscribersIn ids: ClosedRange<UInt64>) {
    queue.async { [self] in
      deliveryLock.lock()
      defer { deliveryLock.unlock() }
      let targets = state.withLock { $0.subscribers.keys.filter { ids.contains($0) }.sorted() }
      for id in targets {
        // Looked up one by one, as in `drain`.
        guard let handler = state.withLock({ $0.subscribers[id] }) else { continue }
        handler(.failure(failure))
      }
    }
  }

  /// Queues events for every current subscriber, in order (dropping the oldest queued ones
  /// beyond ``maximumPendingEvents``).
  func deliver(_ events: [SourceEvent]) {
    guard !events.isEmpty else { return }
    let capacity = maximumPendingEvents
    let (startDrain, firstDrop) = state.withLock { s -> (Bool, Bool) in
      let firstDrop = s.enqueue(events, capacity: capacity)
      let start = !s.isDraining
      s.isDraining = true
      return (start, firstDrop)
    }
    if firstDrop {
      logger.warning(
        "\(failureLabel): a subscriber does not keep up; beyond \(capacity) waiting events the oldest are dropped"
      )
    }
    if startDrain { queue.async { [self] in drain() } }
  }

  /// Delivers pending events until none is left (on `queue`, one drain at a time); a due drop
  /// report goes ahead of the events that follow the drops, as an advisory failure.
  private func drain() {
    while true {
      let (taken, dropReport) = state.withLock { s -> ([SourceEvent], Int?) in
        let taken = s.takePending()
        if taken.events.isEmpty && taken.dropReport == nil { s.isDraining = false }
        return taken
      }
      var events = taken
      if let dropReport {
        let notice = SourceFailure(
          .other,
          "\(failureLabel): \(dropReport) event(s) so far were dropped because subscribers did not "
            + "keep up (more than \(maximumPendingEvents) were waiting)", isFatal: false)
        events.insert(.failure(notice), at: 0)
      }
      guard !events.isEmpty else { return }
      deliveryLock.lock()
      defer { deliveryLock.unlock() }
      for event in events {
        let ids = state.withLock { $0.subscribers.keys.sorted() }
        for id in ids {
          // Looked up one by one: an earlier handler may have cancelled a later subscription.
          guard let handler = state.withLock({ $0.subscribers[id] }) else { continue }
          handler(event)
        }
      }
    }
  }

  /// Queues one event.
  func deliver(_ event: SourceEvent) {
    deliver([event])
  }

  /// Waits until everything queued so far has been delivered (for tests and orderly shutdown).
  func waitUntilDelivered() {
    queue.sync {}
  }
}
