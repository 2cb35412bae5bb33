// SPDX-License-Identifier: Apache-2.0

/// Maps a source's sample timestamps (boot time, or a simulation's or recording's own clock) to
/// wall clock dates (s since 1970) for the history, keeping the samples' own spacing.
///
/// The offset is fixed at the first sample and re-anchored only when the mapped time drifts more
/// than ``tolerance`` from the wall clock (a replay played faster than real time, a suspend, a
/// source restart), so consecutive samples keep their exact relative timing.
struct WallClockAnchor: Sendable {
  /// Largest accepted disagreement between mapped and real wall time, s.
  var tolerance = 2.0
  private var offset: Double?

  init() {}

  mutating func date(forTimestamp timestamp: Double, now: Double) -> Double {
    if let offset, abs(timestamp + offset - now) <= tolerance { return timestamp + offset }
    offset = now - timestamp
    return now
  }
}
