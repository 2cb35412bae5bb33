// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

extension XCTestCase {
  /// Runs blocking client code (the tests' plain-socket clients) on a thread of its own, so the
  /// server's tasks in the same process keep the cooperative pool.
  func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      Thread { continuation.resume(with: Result { try body() }) }.start()
    }
  }
}
