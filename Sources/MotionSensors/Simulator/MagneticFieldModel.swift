// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The Earth's magnetic field at the simulated place, in µT: a strength and a dip (inclination).
///
/// The field points magnetic north and, for a positive dip, down (northern hemisphere), so in the
/// NWU earth frame it is `strength · (cos dip, 0, −sin dip)`. Defaults: 50 µT, 60° dip.
public struct MagneticFieldModel: Sendable, Equatable, Codable {
  /// Total field strength in µT (default 50).
  public var strength: Double
  /// Inclination in degrees below the horizontal (default 60; negative points up).
  public var dip: Double

  /// Creates a field of `strength` µT dipping `dip` degrees below the horizon.
  public init(strength: Double = 50, dip: Double = 60) {
    self.strength = strength
    self.dip = dip
  }

  /// The field vector in µT in the NWU earth frame.
  public var earthField: SIMD3<Double> {
    let d = dip * Units.radiansPerDegree
    return strength * SIMD3(Double.cos(d), 0, -Double.sin(d))
  }

  private enum CodingKeys: String, CodingKey { case strength, dip }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    strength = try c.decodeIfPresent(Double.self, forKey: .strength) ?? 50
    dip = try c.decodeIfPresent(Double.self, forKey: .dip) ?? 60
  }
}

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
