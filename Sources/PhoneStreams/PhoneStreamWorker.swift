// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import MotionSensors

/// One phone stream's network work, run as a task, with a stop that never waits forever.
///
/// The body runs in a detached task that prefers a ``PhoneStreamExecutor`` of its own, so neither
/// it nor a caller that waits for it needs a free thread of Swift concurrency's pool.
/// ``stop(timeout:)`` first asks it to end in an orderly way
/// (`gracefulStop`, when given: a server stops accepting and closes its connections), then, if it
/// has not ended by the last half second, cancels it. It waits at most the given time in all; a
/// body that overruns is left to finish on its own, and later events it produces are still
/// delivered through the hub (never to a cancelled subscription).
final class PhoneStreamWorker: Sendable {
  private let task: Task<Void, Never>
  private let finished: DispatchSemaphore
  private let gracefulStop: (@Sendable () async -> Void)?
  private let executor: PhoneStreamExecutor

  /// Starts `body` at once, on an executor labelled `label`.
  convenience init(
    label: String, gracefulStop: (@Sendable () async -> Void)? = nil,
    _ body: @escaping @Sendable () async -> Void
  ) {
    self.init(label: label, gracefulStop: gracefulStop, onExecutor: { _ in await body() })
  }

  /// Starts `body` at once, on an executor labelled `label` that `body` is given: an unstructured
  /// task of its own does not inherit the preference, and can be started on it.
  init(
    label: String, gracefulStop: (@Sendable () async -> Void)? = nil,
    onExecutor body: @escaping @Sendable (PhoneStreamExecutor) async -> Void
  ) {
    let finished = DispatchSemaphore(value: 0)
    let executor = PhoneStreamExecutor(label: label)
    self.finished = finished
    self.gracefulStop = gracefulStop
    self.executor = executor
    task = Task.detached(executorPreference: executor) {
      await body(executor)
      finished.signal()
      // Held by the task itself: a body that overruns a stop outlives the worker.
      withExtendedLifetime(executor) {}
    }
  }

  /// How many stops so far had to cancel their worker because its orderly stop did not end it in
  /// time (the fallback that, for a server, can drop accepted connections).
  static var cancelledAfterGracePeriodCount: Int {
    cancelledAfterGracePeriod.withLock { $0 }
  }

  private static let cancelledAfterGracePeriod = Locked(0)

  /// Cancels the work and waits up to `timeout` seconds for it to end; returns whether it ended.
  @discardableResult
  func stop(timeout: Double) -> Bool {
    if let gracefulStop {
      Task.detached(executorPreference: executor) { await gracefulStop() }
      if finished.wait(timeout: .now() + max(0, timeout - 0.5)) == .success {
        finished.signal()  // Keep the semaphore signalled for a repeated stop.
        return true
      }
    }
    if gracefulStop != nil { Self.cancelledAfterGracePeriod.withLock { $0 += 1 } }
    task.cancel()
    let remaining = gracefulStop == nil ? timeout : min(timeout, 0.5)
    let ended = finished.wait(timeout: .now() + remaining) == .success
    if ended { finished.signal() }
    return ended
  }
}

/// A monotonic wall clock in seconds, for timeouts and jitter windows (never for sample times).
func phoneStreamUptime() -> Double {
  ProcessInfo.processInfo.systemUptime
}

/// Sleeps `seconds` (at most an hour) unless the task is cancelled first; returns whether it
/// slept the whole time.
///
/// Not `Task.sleep`: its wake-up is a job for Swift concurrency's shared pool, whatever executor
/// the task prefers, so with every pool thread busy a worker's tick loop, poll interval or body
/// deadline would wait for a free thread (about a second, when the pool grows). This one wakes on
/// a dispatch timer of the phone streams' own and resumes the task on its preferred executor
/// (``PhoneStreamExecutor``).
func phoneStreamPause(_ seconds: Double) async -> Bool {
  let pause = PhoneStreamPause()
  return await withTaskCancellationHandler {
    await withCheckedContinuation { continuation in
      pause.begin(continuation, seconds: seconds)
    }
  } onCancel: {
    pause.end(sleptWholeTime: false)
  }
}

/// One ``phoneStreamPause(_:)``: the continuation is resumed once, by the timer or by a
/// cancellation, whichever comes first (a cancellation before the wait began ends it at once).
private final class PhoneStreamPause: Sendable {
  private enum Phase {
    case notStarted
    case waiting(CheckedContinuation<Bool, Never>)
    case ended(Bool)
  }

  /// The timers' queue: serial, of its own, so no timer waits for Swift concurrency's pool.
  private static let timers = DispatchQueue(label: "OpenCoreMotion.PhoneStreams.timers")

  private let phase = Locked(Phase.notStarted)

  func begin(_ continuation: CheckedContinuation<Bool, Never>, seconds: Double) {
    let endedEarly = phase.withLock { phase -> Bool? in
      if case .ended(let outcome) = phase { return outcome }
      phase = .waiting(continuation)
      return nil
    }
    if let endedEarly {
      continuation.resume(returning: endedEarly)
      return
    }
    let delay = seconds.isFinite ? Swift.min(Swift.max(seconds, 0), 3_600) : 0
    Self.timers.asyncAfter(deadline: .now() + delay) { [self] in end(sleptWholeTime: true) }
  }

  func end(sleptWholeTime: Bool) {
    let waiting = phase.withLock { phase -> CheckedContinuation<Bool, Never>? in
      switch phase {
      case .notStarted:
        phase = .ended(sleptWholeTime)
        return nil
      case .waiting(let continuation):
        phase = .ended(sleptWholeTime)
        return continuation
      case .ended:
        return nil
      }
    }
    waiting?.resume(returning: sleptWholeTime)
  }
}
