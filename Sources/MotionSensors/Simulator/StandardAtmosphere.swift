// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The International Standard Atmosphere's troposphere, for the simulated barometer.
public enum StandardAtmosphere {
  /// Sea-level standard pressure in kPa.
  public static let seaLevelPressure = 101.325

  /// Pressure in kPa at `altitude` metres above sea level (troposphere, below 11 km):
  /// `p = p₀ · (1 − L·h/T₀)^(g·M/(R·L))` with L = 0.0065 K/m, T₀ = 288.15 K, exponent 5.25588.
  @inline(__always)
  public static func pressure(atAltitude altitude: Double) -> Double {
    seaLevelPressure * Double.pow(1 - 2.25577e-5 * altitude, 5.25588)
  }

  /// Altitude in metres at which the standard pressure is `pressure` kPa (the inverse formula).
  public static func altitude(atPressure pressure: Double) -> Double {
    (1 - Double.pow(pressure / seaLevelPressure, 1 / 5.25588)) / 2.25577e-5
  }
}
