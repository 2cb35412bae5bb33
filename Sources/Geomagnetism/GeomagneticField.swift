// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The geomagnetic main field at one place and time in nT, with its derived angles in degrees.
///
/// Components use the geodetic local frame of magnetic charts: X north (along the meridian), Y
/// east, Z down (along the WGS-84 ellipsoid normal). Note that this is *not* OpenCoreMotion's NWU
/// earth frame: in NWU the same vector is (X, −Y, −Z).
public struct GeomagneticField: Sendable, Equatable {
  /// The field vector (X north, Y east, Z down) in nT.
  public let vector: SIMD3<Double>
  /// The annual change (secular variation) of ``vector`` in nT per year.
  public let annualChange: SIMD3<Double>
  /// The geodetic latitude the field was computed for, in degrees.
  public let latitude: Double
  /// The longitude the field was computed for, in degrees east.
  public let longitude: Double
  /// The decimal year the field was computed for.
  public let decimalYear: Double
  /// Whether ``decimalYear`` lies inside the model's published validity period (2025.0–2030.0 for
  /// WMM2025). When `false` the value is an extrapolation and should not be relied on.
  public let isWithinValidityPeriod: Bool

  /// Creates a field value from its components; derived elements are computed on access.
  public init(
    vector: SIMD3<Double>, annualChange: SIMD3<Double>, latitude: Double, longitude: Double,
    decimalYear: Double, isWithinValidityPeriod: Bool
  ) {
    self.vector = vector
    self.annualChange = annualChange
    self.latitude = latitude
    self.longitude = longitude
    self.decimalYear = decimalYear
    self.isWithinValidityPeriod = isWithinValidityPeriod
  }

  /// The northward component X in nT.
  public var north: Double { vector.x }
  /// The eastward component Y in nT.
  public var east: Double { vector.y }
  /// The downward component Z in nT (positive in the northern magnetic hemisphere).
  public var down: Double { vector.z }

  /// The horizontal intensity H = √(X² + Y²) in nT.
  public var horizontalIntensity: Double {
    (vector.x * vector.x + vector.y * vector.y).squareRoot()
  }
  /// The total intensity F = √(X² + Y² + Z²) in nT.
  public var totalIntensity: Double {
    (vector.x * vector.x + vector.y * vector.y + vector.z * vector.z).squareRoot()
  }
  /// The inclination (dip) I = atan2(Z, H) in degrees, −90…90, positive when the field points down.
  public var inclination: Double { atan2(vector.z, horizontalIntensity) * 180 / .pi }

  /// The declination D = atan2(Y, X) in degrees, −180…180, **east positive**.
  ///
  /// A compass needle points `declination` degrees east of true north (west when negative), so
  /// true heading = magnetic heading + declination.
  public var declination: Double { atan2(vector.y, vector.x) * 180 / .pi }

  /// The grid variation in degrees, or `nil` between 55° S and 55° N, where it is not defined.
  ///
  /// Polar navigation uses a grid whose north is aligned with the Greenwich meridian of a polar
  /// stereographic projection; grid variation is the angle from grid north to magnetic north,
  /// GV = D − λ in the Arctic and GV = D + λ in the Antarctic (WMM technical report), wrapped to
  /// −180…180.
  public var gridVariation: Double? {
    let raw: Double
    if latitude >= 55 {
      raw = declination - longitude
    } else if latitude <= -55 {
      raw = declination + longitude
    } else {
      return nil
    }
    var wrapped = raw.truncatingRemainder(dividingBy: 360)
    if wrapped > 180 { wrapped -= 360 }
    if wrapped <= -180 { wrapped += 360 }
    return wrapped
  }

  /// How trustworthy a compass (and therefore the declination) is here, from H (WMM2025 report).
  public enum CompassReliability: Sendable, Equatable {
    /// H ≥ 6000 nT: a compass works normally.
    case normal
    /// 2000 nT ≤ H < 6000 nT: the NGA "caution zone" near the magnetic poles; compasses are
    /// degraded.
    case caution
    /// H < 2000 nT: the "blackout zone"; a compass is unreliable and declination is not meaningful.
    case blackout
  }

  /// The compass reliability derived from ``horizontalIntensity`` (thresholds 2000 and 6000 nT).
  public var compassReliability: CompassReliability {
    let h = horizontalIntensity
    if h < 2000 { return .blackout }
    if h < 6000 { return .caution }
    return .normal
  }

  /// The annual change of X (north) in nT per year.
  public var northAnnualChange: Double { annualChange.x }
  /// The annual change of Y (east) in nT per year.
  public var eastAnnualChange: Double { annualChange.y }
  /// The annual change of Z (down) in nT per year.
  public var downAnnualChange: Double { annualChange.z }
  /// The annual change of H in nT per year: Ḣ = (X Ẋ + Y Ẏ)/H.
  public var horizontalIntensityAnnualChange: Double {
    (vector.x * annualChange.x + vector.y * annualChange.y) / horizontalIntensity
  }
  /// The annual change of F in nT per year: Ḟ = (X Ẋ + Y Ẏ + Z Ż)/F.
  public var totalIntensityAnnualChange: Double {
    (vector.x * annualChange.x + vector.y * annualChange.y + vector.z * annualChange.z)
      / totalIntensity
  }
  /// The annual change of the declination in degrees per year: Ḋ = (X Ẏ − Y Ẋ)/H².
  public var declinationAnnualChange: Double {
    let h = horizontalIntensity
    return (vector.x * annualChange.y - vector.y * annualChange.x) / (h * h) * 180 / .pi
  }
  /// The annual change of the inclination in degrees per year: İ = (H Ż − Z Ḣ)/F².
  public var inclinationAnnualChange: Double {
    let f = totalIntensity
    return (horizontalIntensity * annualChange.z - vector.z * horizontalIntensityAnnualChange)
      / (f * f)
      * 180 / .pi
  }
}
