// SPDX-License-Identifier: Apache-2.0

/// Keeps SensorServer timestamps increasing across reconnections: if the first sample of a new
/// connection is older than what was already delivered (the phone rebooted, so its boot clock
/// restarted), all later samples are shifted forward by the difference.
package struct SensorServerClockContinuity: Sendable {
  /// Seconds added to the phone's times.
  package var offset: Double
  /// Whether the next sample is the first of a connection.
  package var needsCheck: Bool

  package init(offset: Double, needsCheck: Bool) {
    self.offset = offset
    self.needsCheck = needsCheck
  }

  /// The continued timestamp for phone time `timestamp` (seconds), given the last delivered one.
  package mutating func adjust(_ timestamp: Double, after lastDelivered: Double) -> Double {
    if needsCheck {
      needsCheck = false
      if lastDelivered.isFinite && timestamp.isFinite && timestamp + offset < lastDelivered {
        offset = lastDelivered - timestamp
      }
    }
    return timestamp + offset
  }
}
