// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Turns barometer readings into altitude changes and floor counts for the in-process history.
///
/// This is the one plug point for the altitude and floor algorithms: `RelativeAltitudeFilter`
/// (`process(time:pressure:) -> Double`, m since the first sample) and `FloorCounter`
/// (`process(time:pressure:) -> Change?`, `noteStep(time:)`, `floorsAscended`, `floorsDescended`)
/// replace the bodies below when they land in MotionDetectors. Until then the altitude is the
/// standard-atmosphere height difference without smoothing, and floors are not counted
/// (``countsFloors`` is `false`, so `CMPedometer.isFloorCountingAvailable()` is `false` and the
/// pedometer's floor fields are `nil`).
package struct PressureAltitudeAdapter: Sendable {
  /// Whether this adapter counts floors.
  package static let countsFloors = false

  /// Sea-level standard pressure, kPa.
  package static let standardSeaLevelPressure = 101.325

  /// Height in metres at `pressure` kPa in the standard atmosphere, for sea-level pressure
  /// `seaLevelPressure` kPa: h = 44330.8 · (1 − (p/p₀)^0.190263). This is the formula whose
  /// differences match the relative altitude Apple's devices report from their own pressure readings.
  package static func standardHeight(pressure: Double, seaLevelPressure: Double = standardSeaLevelPressure) -> Double {
    44330.8 * (1 - Foundation.pow(pressure / seaLevelPressure, 0.190263))
  }

  private var firstHeight: Double?

  package init() {}
  /// Floors completed so far (always 0 until a floor counter is plugged in).
  package private(set) var floorsAscended = 0
  package private(set) var floorsDescended = 0

  /// Feeds one reading (time in s, pressure in kPa); returns the altitude in metres relative to the
  /// first reading, and the floors completed by this reading (`nil` when none). Readings that are
  /// not positive and finite return `nil`.
  package mutating func process(
    time: Double, pressure: Double
  ) -> (altitude: Double, floors: (ascended: Int, descended: Int)?)? {
    guard pressure.isFinite, pressure > 0, time.isFinite else { return nil }
    let height = Self.standardHeight(pressure: pressure)
    if firstHeight == nil { firstHeight = height }
    return (height - (firstHeight ?? height), nil)
  }

  /// Tells the floor counter that a step happened at `time` s (floors count only while walking).
  package mutating func noteStep(time: Double) {}
}
