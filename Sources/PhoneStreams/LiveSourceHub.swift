// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import MotionSensors

/// The subscriber bookkeeping, worker lifecycle and serial delivery shared by the phone-stream
/// sources.
///
/// A hub starts its owner's network worker when the first subscriber arrives and stops it when the
/// last one cancels, so one connection or listener serves every subscriber. Events are handed over
/// on a private serial queue: the network tasks never wait for a subscriber, and a subscriber never
/// runs concurrently with itself. Stopping waits for the worker at most ``stopTimeout`` seconds, so
/// a peer that never reads or never answers cannot hang `cancel()`.
///
/// `@unchecked Sendable`: `subscribers` is guarded by `state` (a lock), `isRunning` and `worker` by
/// `lifecycleLock`; handlers run only on `queue` while `deliveryLock` is held.
final class LiveSourceHub: @unchecked Sendable {
  typealias Handler = @Sendable (SourceEvent) -> Void

  private struct State {
    var subscribers: [UInt64: Handler] = [:]
    var nextID: UInt64 = 0
  }

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
  private let queue: DispatchQueue
  private let failureLabel: String
  private let startWorker: @Sendable () throws -> PhoneStreamWorker?
  private let didStop: @Sendable () -> Void

  /// Creates a hub for the source called `failureLabel` in failure messages.
  ///
  /// `startWorker` opens the owner's connection and returns its running worker (or `nil` when the
  /// owner is gone); if it throws, subscribers get the error as a failure (a ``SourceFailure`` as
  /// is, anything else as `.other`) and no worker runs until the last subscriber has left.
  /// `didStop` (default: nothing) runs after the worker has been stopped.
  init(
    name: String, failureLabel: String,
    startWorker: @escaping @Sendable () throws -> PhoneStreamWorker?,
    didStop: @escaping @Sendable () -> Void = {}
  ) {
    self.queue = DispatchQueue(label: "OpenCoreMotion.\(name).delivery")
    self.failureLabel = failureLabel
    self.startWorker = startWorker
    self.didStop = didStop
  }

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
    let wanted = hasSubscribers
    if wanted && !isRunning {
      isRunning = true
      do {
        worker = try startWorker()
      } catch let failure as SourceFailure {
        deliver(.failure(failure))
      } catch {
        deliver(.failure(SourceFailure(.other, "\(failureLabel): \(error)")))
      }
    } else if !wanted && isRunning {
      isRunning = false
      // Bounded: the worker's tasks only hand events to `queue`, and the wait has a deadline.
      worker?.stop(timeout: Self.stopTimeout)
      worker = nil
      didStop()
    }
  }

  /// Queues events for every current subscriber, in order.
  func deliver(_ events: [SourceEvent]) {
    guard !events.isEmpty else { return }
    queue.async { [self] in
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
