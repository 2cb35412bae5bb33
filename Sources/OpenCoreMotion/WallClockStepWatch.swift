// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Notices when the system's wall clock is set: NTP's first step on a board without a
/// battery-backed clock (which boots in 1970, or at the last shutdown's date), or someone setting
/// the date by hand.
///
/// It watches the wall clock's offset from the boot clock (`CLOCK_BOOTTIME`). Both count through
/// a suspend, and NTP corrects small errors by slewing, at most 0.5 ms per second, so the offset
/// moves by more than ``tolerance`` only when the clock is set, or after a long slew. Either way
/// the history's dates should follow the wall clock, and ``step(wall:boot:)`` says by how much.
///
/// The in-process history needs this because it maps the source's timestamps to dates once, at
/// its first sample (``MotionTimeline``): without it, a clock set forward by years after that
/// left every later step dated in 1970, and a query or an update for today found none of them.
package struct WallClockStepWatch: Sendable, Equatable {
  /// The change of the offset that counts as a step, s.
  package let tolerance: Double
  /// The wall clock's offset from the boot clock when the dates were last anchored, s.
  private var anchoredOffset: Double?

  package init(tolerance: Double = 1) {
    self.tolerance = tolerance
  }

  /// The change of the wall clock against the boot clock since the first reading or the last
  /// step (s, positive when the clock was set forward), when it is larger than ``tolerance``;
  /// otherwise `nil`. A step re-anchors the watch at this reading. Readings that are not finite
  /// are ignored.
  package mutating func step(wall: Date, boot: Double) -> Double? {
    let offset = wall.timeIntervalSince1970 - boot
    guard offset.isFinite else { return nil }
    guard let anchoredOffset else {
      self.anchoredOffset = offset
      return nil
    }
    let change = offset - anchoredOffset
    guard Swift.abs(change) > tolerance else { return nil }
    self.anchoredOffset = offset
    return change
  }
}
