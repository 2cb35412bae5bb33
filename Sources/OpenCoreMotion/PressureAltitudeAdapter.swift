// SPDX-License-Identifier: Apache-2.0

import MotionDetectors

/// Turns barometer readings into altitude changes and floor counts for the in-process history:
/// the one place where the history reaches `RelativeAltitudeFilter` (relative altitude from the
/// standard atmosphere, lightly smoothed) and `FloorCounter` (floors walked, not ridden).
package struct PressureAltitudeAdapter: Sendable {
  /// Whether this adapter counts floors.
  package static let countsFloors = true

  /// Sea-level standard pressure, kPa.
  package static let standardSeaLevelPressure = BarometricAltitude.standardSeaLevelPressure

  /// Height in metres at `pressure` kPa in the standard atmosphere, for sea-level pressure
  /// `seaLevelPressure` kPa: h = 44330.77 · (1 − (p/p₀)^0.190263). This is the formula whose
  /// differences match the relative altitude Apple's devices report from their own pressure
  /// readings.
  package static func standardHeight(
    pressure: Double, seaLevelPressure: Double = standardSeaLevelPressure
  ) -> Double {
    BarometricAltitude.height(
      atPressure: pressure * (BarometricAltitude.standardSeaLevelPressure / seaLevelPressure))
  }

  private var altitudeFilter = RelativeAltitudeFilter()
  private var floorCounter = FloorCounter()
  /// Readings refused as physically impossible (outside 1–200 kPa, or not finite).
  package private(set) var refusedReadings = 0

  package init() {}
  /// Floors walked up so far.
  package var floorsAscended: Int { floorCounter.floorsAscended }
  /// Floors walked down so far.
  package var floorsDescended: Int { floorCounter.floorsDescended }

  /// Feeds one reading (time in s, pressure in kPa); returns the altitude in metres relative to the
  /// first reading, the (lightly smoothed) pressure it belongs to, and the floors completed by this
  /// reading (`nil` when none). Readings outside ``BarometricAltitude/plausiblePressureRange``
  /// (1–200 kPa; NaN and infinities too) return `nil`, are counted in ``refusedReadings`` and leave
  /// the altitude and floor state as they were.
  package mutating func process(
    time: Double, pressure: Double
  ) -> (altitude: Double, pressure: Double, floors: (ascended: Int, descended: Int)?)? {
    guard BarometricAltitude.isPlausible(pressure: pressure) else {
      refusedReadings &+= 1
      return nil
    }
    guard let altitude = altitudeFilter.process(time: time, pressure: pressure) else { return nil }
    let change = floorCounter.process(time: time, pressure: pressure)
    return (
      altitude, altitudeFilter.smoothedPressure ?? pressure,
      change.map { ($0.ascended, $0.descended) }
    )
  }

  /// Tells the floor counter that a step happened at `time` s (floors count only while walking).
  package mutating func noteStep(time: Double) {
    floorCounter.noteStep(time: time)
  }
}
