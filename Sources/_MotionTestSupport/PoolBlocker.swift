// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Holds threads of Swift concurrency's shared pool until ``release()``, to test that a wait does
/// not need one.
///
/// The pool's width is the number of processors, and it has threads of its own per priority:
/// ``occupy(_:priority:)`` makes tasks of the given priority (or, with `nil`, of the caller's, as a
/// `Task` made on the caller's thread would have) that block their threads.
///
/// `@unchecked Sendable`: `occupied` and `isReleased` are used only while `condition` is locked.
package final class PoolBlocker: @unchecked Sendable {
  private let condition = NSCondition()
  private var occupied = 0
  private var isReleased = false

  package init() {}

  /// Starts `count` tasks of `priority` that each hold their thread until ``release()``.
  package func occupy(_ count: Int, priority: TaskPriority? = nil) {
    for _ in 0..<count {
      Task(priority: priority) { self.holdCurrentThread() }
    }
  }

  /// Blocks the calling thread until ``release()``.
  package func holdCurrentThread() {
    condition.lock()
    defer { condition.unlock() }
    occupied += 1
    condition.broadcast()
    while !isReleased { condition.wait() }
  }

  /// Waits until `count` threads are held, or `seconds` pass; returns how many are.
  package func waitUntilOccupied(_ count: Int, seconds: Double) -> Int {
    condition.lock()
    defer { condition.unlock() }
    let deadline = Date(timeIntervalSinceNow: seconds)
    while occupied < count, condition.wait(until: deadline) {}
    return occupied
  }

  /// The pool's width: its threads per priority, one per processor.
  package static var poolWidth: Int { ProcessInfo.processInfo.activeProcessorCount }

  /// Occupies every thread of the pool at `priority` (see ``occupy(_:priority:)``) and waits up
  /// to `seconds` for them; returns how many are held (``poolWidth`` when all are).
  package func occupyThePool(priority: TaskPriority? = nil, seconds: Double = 60) -> Int {
    occupy(Self.poolWidth, priority: priority)
    return waitUntilOccupied(Self.poolWidth, seconds: seconds)
  }

  /// Lets every held thread go (and any that arrives later pass straight through).
  package func release() {
    condition.lock()
    defer { condition.unlock() }
    isReleased = true
    condition.broadcast()
  }
}
