// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A value guarded by a lock. Small and boring on purpose: every access goes through `withLock`.
/// `@unchecked Sendable`: `value` is only reached through `withLock`, which holds `lock`.
package final class Locked<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()

  package init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  @discardableResult
  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
