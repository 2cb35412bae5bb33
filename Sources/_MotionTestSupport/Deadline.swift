// SPDX-License-Identifier: Apache-2.0

import Foundation

/// An async test step that did not finish in time.
package struct DeadlineExceeded: Error, CustomStringConvertible {
  package var description: String
}

/// Runs `body` and returns its result, or throws ``DeadlineExceeded`` (naming `what`) once
/// `seconds` have passed; `body` is then cancelled.
///
/// XCTest on Linux and Swift Testing put no time limit on an async test, so a `for await` over a
/// sequence that never ends would hold the whole run until CI's limit. With this, the test fails
/// and the run goes on. The caller is released at the deadline even if `body` ignores the
/// cancellation (it is then left running).
package func withDeadline<T: Sendable>(
  seconds: Double, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  let outcome = FirstOutcome()
  let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, min(seconds, 86_400)) * 1000))
  return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
    let work = Task {
      do {
        let value = try await body()
        if outcome.claim() { continuation.resume(returning: value) }
      } catch {
        if outcome.claim() { continuation.resume(throwing: error) }
      }
    }
    Task {
      // Checked in slices so that this timer ends soon after the work does.
      while !outcome.isClaimed, ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(50))
      }
      if outcome.claim() {
        work.cancel()
        continuation.resume(throwing: DeadlineExceeded(description: "\(what) did not finish within \(seconds) s"))
      }
    }
  }
}

/// Which of the work and the timer finished first: the first to claim resumes the caller.
///
/// `@unchecked Sendable`: `claimed` is only read and written with `lock` held.
private final class FirstOutcome: @unchecked Sendable {
  private let lock = NSLock()
  private var claimed = false

  var isClaimed: Bool { lock.withLock { claimed } }

  /// True for the first caller only.
  func claim() -> Bool {
    lock.withLock {
      defer { claimed = true }
      return !claimed
    }
  }
}
