// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonProtocol

extension DaemonClient {
  /// A request waiting for its reply (or replies). Completes exactly once: by its last reply or
  /// by a failure (disconnection, close), whichever comes first.
  final class Pending: @unchecked Sendable {
    // Sendable because `isDone` is guarded by `lock`, and the callbacks run under it.
    /// Returns true when the request is complete.
    private let onMessage: (WireServerMessage) -> Bool
    private let onFailure: (DaemonError) -> Void
    private let lock = NSLock()
    private var isDone = false
    /// When the request was sent or last got a reply (boot clock, s): the reply timeout counts
    /// from here, so a long answer in many chunks does not time out while it arrives.
    private var lastActivity = ProcessInfo.processInfo.systemUptime
    init(
      onMessage: @escaping (WireServerMessage) -> Bool, onFailure: @escaping (DaemonError) -> Void
    ) {
      self.onMessage = onMessage
      self.onFailure = onFailure
    }

    /// Hands over one reply; returns true when the request is complete.
    func deliver(_ message: WireServerMessage) -> Bool {
      lock.withLock {
        guard !isDone else { return true }
        lastActivity = ProcessInfo.processInfo.systemUptime
        isDone = onMessage(message)
        return isDone
      }
    }

    /// Whether the request is over, and how long it has waited since its last reply, s.
    var progress: (isDone: Bool, idle: Double) {
      lock.withLock { (isDone, ProcessInfo.processInfo.systemUptime - lastActivity) }
    }

    func fail(_ error: DaemonError) {
      lock.withLock {
        guard !isDone else { return }
        isDone = true
        onFailure(error)
      }
    }
  }
}
