// SPDX-License-Identifier: Apache-2.0

import Dispatch
import MotionSensors

/// A blocking read run on a serial queue of its own and awaited; callers that arrive while a read
/// runs share its result instead of queueing another. So the waiting is bounded by the callers,
/// not by how often they ask, and no thread of Swift concurrency's pool blocks.
final class SharedRead<Value: Sendable>: Sendable {
  private let queue: DispatchQueue
  /// The callers waiting for the read in progress; `nil` while none runs.
  private let waiting = Locked<[CheckedContinuation<Value, any Error>]?>(nil)

  init(label: String) {
    queue = DispatchQueue(label: label)
  }

  /// How many callers wait for the read in progress (for tests).
  var waitingCount: Int { waiting.withLock { $0?.count ?? 0 } }

  /// The result of `body`: of a read started now, or of the one in progress (begun a little
  /// before this call; fine for a panel that polls every few seconds).
  func read(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
      let startsTheRead = waiting.withLock { waiting -> Bool in
        if waiting != nil {
          waiting?.append(continuation)
          return false
        }
        waiting = [continuation]
        return true
      }
      guard startsTheRead else { return }
      queue.async { [waiting] in
        let result = Result { try body() }
        let waiters = waiting.withLock { waiting in
          defer { waiting = nil }
          return waiting ?? []
        }
        for waiter in waiters { waiter.resume(with: result) }
      }
    }
  }
}
