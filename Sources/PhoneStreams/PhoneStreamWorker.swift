// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation

/// One phone stream's network work, run as a task, with a stop that never waits forever.
///
/// The body runs in a detached task and must end soon after it is cancelled (NIO-based transports
/// do: cancellation closes their channels). ``stop(timeout:)`` cancels it and waits for the end at
/// most the given time; a body that overruns is left to finish on its own, and later events it
/// produces are still delivered through the hub (never to a cancelled subscription).
final class PhoneStreamWorker: Sendable {
  private let task: Task<Void, Never>
  private let finished: DispatchSemaphore

  /// Starts `body` at once.
  init(_ body: @escaping @Sendable () async -> Void) {
    let finished = DispatchSemaphore(value: 0)
    self.finished = finished
    task = Task.detached {
      await body()
      finished.signal()
    }
  }

  /// Cancels the work and waits up to `timeout` seconds for it to end; returns whether it ended.
  @discardableResult
  func stop(timeout: Double) -> Bool {
    task.cancel()
    return finished.wait(timeout: .now() + timeout) == .success
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
