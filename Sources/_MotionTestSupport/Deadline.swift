// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency

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
  // Whether the work or the timer has resumed the caller; the first to claim it does.
  let claimed = Locked(false)
  let claim: @Sendable () -> Bool = {
    claimed.withLock { isClaimed in
      defer { isClaimed = true }
      return !isClaimed
    }
  }
  let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, min(seconds, 86_400)) * 1000))
  return try await withCheckedThrowingContinuation {
    (continuation: CheckedContinuation<T, any Error>) in
    let work = Task {
      do {
        let value = try await body()
        if claim() { continuation.resume(returning: value) }
      } catch {
        if claim() { continuation.resume(throwing: error) }
      }
    }
    Task {
      // Checked in slices so that this timer ends soon after the work does.
      while !claimed.withLock({ $0 }), ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(50))
      }
      if claim() {
        work.cancel()
        continuation.resume(
          throwing: DeadlineExceeded(description: "\(what) did not finish within \(seconds) s"))
      }
    }
  }
}
