// SPDX-License-Identifier: Apache-2.0

/// The resampling grids of the step detector and the activity features.
enum GridTime {
  /// The grid time after `gridTime`, one `period` on; or, when the time is so large (beyond about
  /// 1e14 s: microseconds read as seconds) that a period no longer changes it, just past the
  /// input sample's `inputTime`, so that the loop that fills the grid up to the input ends (one
  /// grid sample per input sample) instead of spinning for ever.
  @inline(__always)
  static func next(after gridTime: Double, period: Double, inputTime: Double) -> Double {
    let next = gridTime + period
    return next > gridTime ? next : inputTime.nextUp
  }
}
