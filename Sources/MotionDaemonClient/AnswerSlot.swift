// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Where a completion handler leaves one result for a thread that waits for it
/// (``DaemonClient/waitForAnswer(to:timeout:)``): a condition and a flag, so that a result that
/// comes after the waiter gave up is simply dropped (a semaphore left unbalanced would trap when
/// it is freed).
final class AnswerSlot<Answer>: @unchecked Sendable {
  // Sendable because `result` is read and written only while `condition` is locked.
  private let condition = NSCondition()
  private var result: Result<Answer, any Error>?

  /// Keeps the first result; later ones are ignored.
  func fill(_ value: Result<Answer, any Error>) {
    condition.lock()
    defer { condition.unlock() }
    guard result == nil else { return }
    result = value
    condition.broadcast()
  }

  /// The result, once there is one; `nil` if `deadline` comes first.
  func wait(until deadline: Date) -> Result<Answer, any Error>? {
    condition.lock()
    defer { condition.unlock() }
    while result == nil {
      if !condition.wait(until: deadline) { break }
    }
    return result
  }
}
