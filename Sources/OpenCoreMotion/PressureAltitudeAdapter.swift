// SPDX-License-Identifier: Apache-2.0

import MotionDetectors

/// The altimeter's and pedometer's barometer facts: whether floors are counted, and the standard
/// atmosphere's height for a pressure. The readings themselves go through `BarometerTracker`
/// (MotionDetectors), as in the daemon and the dashboard.
package enum PressureAltitudeAdapter {
  /// Whether the pedometer counts floors (where there is a barometer).
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
}
