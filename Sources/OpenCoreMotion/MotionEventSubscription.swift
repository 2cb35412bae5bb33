// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A running ``CMMotionManager/startMotionEventUpdates(detectedBy:to:withHandler:)``; cancel it to
/// stop. After ``cancel()`` returns, no further handler call starts.
/// `@unchecked Sendable`: `cancelled` and `storedTask` are only touched with `lock` held.
public final class MotionEventSubscription: @unchecked Sendable {
  private let lock = NSLock()
  private var cancelled = false
  private var storedTask: Task<Void, Never>?

  /// Attaches the task that feeds the recogniser; cancels it at once if ``cancel()`` came first.
  func attach(_ task: Task<Void, Never>) {
    lock.lock()
    storedTask = task
    let alreadyCancelled = cancelled
    lock.unlock()
    if alreadyCancelled { task.cancel() }
  }

  init() {}

  /// Whether ``cancel()`` has been called.
  public var isCancelled: Bool {
    lock.lock()
    defer { lock.unlock() }
    return cancelled
  }

  /// Stops the recogniser.
  public func cancel() {
    lock.lock()
    cancelled = true
    let task = storedTask
    lock.unlock()
    task?.cancel()
  }
}
