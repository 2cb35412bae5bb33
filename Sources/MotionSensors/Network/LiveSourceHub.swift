// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The subscriber bookkeeping, worker lifecycle and serial delivery shared by the phone-stream
/// sources.
///
/// A hub starts its owner's network worker when the first subscriber arrives and stops it (and
/// waits for it) when the last one cancels, so one socket serves every subscriber. Events are
/// handed over on a private serial queue: the network thread never waits for a subscriber, and a
/// subscriber never runs concurrently with itself.
final class LiveSourceHub: @unchecked Sendable {
  typealias Handler = @Sendable (SourceEvent) -> Void

  private struct State {
    var subscribers: [UInt64: Handler] = [:]
    var nextID: UInt64 = 0
  }

  private let state = Locked(State())
  /// Held while handlers run, so that a cancelled subscription is never called once `cancel()` has
  /// returned. Recursive: a handler may cancel its own subscription.
  private let deliveryLock = NSRecursiveLock()
  /// Serialises start and stop of the network worker, and guards `isRunning` and `worker`.
  private let lifecycleLock = NSLock()
  private var isRunning = false
  private var worker: NetworkThread?
  private let queue: DispatchQueue
  private let failureLabel: String
  private let startWorker: @Sendable () throws -> NetworkThread?
  private let didStop: @Sendable () -> Void

  /// Creates a hub for the source called `failureLabel` in failure messages.
  ///
  /// `startWorker` opens the owner's connection and returns its running worker (or `nil` when the
  /// owner is gone); if it throws, subscribers get the error as a failure (`.busy` for an address
  /// already in use, otherwise `.other`) and no worker runs until the last subscriber has left.
  /// `didStop` (default: nothing) runs after the worker has been stopped and has finished.
  init(
    name: String, failureLabel: String,
    startWorker: @escaping @Sendable () throws -> NetworkThread?,
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
      } catch {
        let kind: SourceFailure.Kind = (error as? SocketError)?.isAddressInUse == true ? .busy : .other
        deliver(.failure(SourceFailure(kind, "\(failureLabel): \(error)")))
      }
    } else if !wanted && isRunning {
      isRunning = false
      // The worker only hands events to `queue`, so waiting for it here cannot deadlock.
      worker?.stopAndWait()
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

/// A dedicated thread for one network worker, with a prompt, joinable stop.
final class NetworkThread: @unchecked Sendable {
  /// Wakes the thread from `poll(2)`; include ``WakeSignal/readDescriptor`` in every wait.
  let wake: WakeSignal
  private let stopRequested = Locked(false)
  private let finished = DispatchSemaphore(value: 0)

  /// Starts `body` on a new thread; `body` should return soon after ``isStopRequested`` turns true.
  init(name: String, _ body: @escaping @Sendable (NetworkThread) -> Void) throws {
    wake = try WakeSignal()
    let thread = Thread { [self] in
      body(self)
      finished.signal()
    }
    thread.name = name
    thread.start()
  }

  /// Whether ``stopAndWait()`` has been called.
  var isStopRequested: Bool { stopRequested.withLock { $0 } }

  /// Asks the thread to stop and waits until its body has returned.
  func stopAndWait() {
    stopRequested.withLock { $0 = true }
    wake.signal()
    finished.wait()
  }

  /// Waits up to `seconds`, returning early (with `false`) when a stop is requested.
  func pause(_ seconds: Double) -> Bool {
    if isStopRequested { return false }
    _ = pollForInput([wake.readDescriptor], timeout: seconds)
    return !isStopRequested
  }
}

/// A monotonic wall clock in seconds, for timeouts and jitter windows (never for sample times).
func phoneStreamUptime() -> Double {
  ProcessInfo.processInfo.systemUptime
}
