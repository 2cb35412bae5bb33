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
