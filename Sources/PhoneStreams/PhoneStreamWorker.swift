// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

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
  init(
    label: String, gracefulStop: (@Sendable () async -> Void)? = nil,
    _ body: @escaping @Sendable () async -> Void
  ) {
    let finished = DispatchSemaphore(value: 0)
    let executor = PhoneStreamExecutor(label: label)
    self.finished = finished
    self.gracefulStop = gracefulStop
    self.executor = executor
    task = Task.detached(executorPreference: executor) {
      await body()
      finished.signal()
      // Held by the task itself: a body that overruns a stop outlives the worker.
      withExtendedLifetime(executor) {}
    }
  }

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

/// Sleeps `seconds` unless the task is cancelled first; returns whether it slept the whole time.
func phoneStreamPause(_ seconds: Double) async -> Bool {
  do {
    try await Task.sleep(nanoseconds: UInt64(max(0, min(seconds, 3_600)) * 1e9))
    return true
  } catch {
    return false
  }
}
