// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A value guarded by a lock. Small and boring on purpose: every access goes through `withLock`.
/// `@unchecked Sendable`: `value` is only reached through `withLock`, which holds `lock`.
///
/// `withLock` is inlinable so that callers in other modules get it specialised for their value
/// type: unspecialised, every call looked up generic metadata at run time (measured with `perf` on
/// the dashboard's 100 Hz path).
///
/// The class is `public` (its members are `package`) because Swift 6.3 does not serialise the
/// bodies of `@inlinable` members of a `package` type: the callers kept calling the unspecialised
/// generic (647 call sites in `motionctl`, checked with `objdump`). MotionConcurrency is not a
/// product, so this makes nothing importable outside the package.
public final class Locked<Value>: @unchecked Sendable {
  @usableFromInline var value: Value
  @usableFromInline let lock = NSLock()

  package init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  @inlinable @discardableResult
  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
