// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A spherical-harmonic model of Earth's main magnetic field, such as the World Magnetic Model.
///
/// The model holds Schmidt semi-normalised Gauss coefficients gₙᵐ, hₙᵐ (nT) at an epoch together
/// with their secular variation ġₙᵐ, ḣₙᵐ (nT/year). Evaluating it follows the method of the WMM
/// technical report (Chulliat et al., 2025, sections 1.2–1.4):
///
/// 1. The geodetic position (WGS-84 latitude, longitude, height above the ellipsoid) is converted
///    to geocentric spherical coordinates (radius r, geocentric latitude φ′).
/// 2. The coefficients are advanced linearly from the epoch to the requested decimal year:
///    g(t) = g(t₀) + (t − t₀)·ġ.
/// 3. The gradient of the potential V = a Σₙ (a/r)ⁿ⁺¹ Σₘ (gₙᵐ cos mλ + hₙᵐ sin mλ) P̆ₙᵐ(sin φ′),
///    a = 6371.2 km, gives the field in the geocentric frame (X′ north, Y′ east, Z′ toward the
///    centre).
/// 4. X′ and Z′ are rotated by φ′ − φ so that Z points along the ellipsoid normal (down) and X
///    along the geodetic meridian (north).
///
/// Use ``wmm2025`` for the current model. ``field(latitude:longitude:altitudeMeters:decimalYear:)``
/// always computes a value; outside ``validityPeriod`` the secular variation is extrapolated and
/// the result carries ``GeomagneticField/isWithinValidityPeriod`` `== false`, because the model's
/// error grows quickly beyond its five-year span.
public struct WorldMagneticModel: Sendable {
  /// One row of a coefficient file: degree n, order m, gₙᵐ and hₙᵐ in nT, ġₙᵐ and ḣₙᵐ in nT/year.
  public struct GaussCoefficient: Sendable, Equatable {
    /// The spherical-harmonic degree n, from 1.
    public var degree: Int
    /// The spherical-harmonic order m, from 0 to `degree`.
    public var order: Int
    /// The cosine coefficient gₙᵐ at the model epoch, in nT.
    public var g: Double
    /// The sine coefficient hₙᵐ at the model epoch, in nT (zero when the order is 0).
    public var h: Double
    /// The secular variation ġₙᵐ, in nT per year.
    public var gRate: Double
    /// The secular variation ḣₙᵐ, in nT per year.
    public var hRate: Double

    /// Creates a coefficient row in the column order of a `WMM.COF` file.
    public init(
      _ degree: Int, _ order: Int, _ g: Double, _ h: Double, _ gRate: Double, _ hRate: Double
    ) {
      self.degree = degree
      self.order = order
      self.g = g
      self.h = h
      self.gRate = gRate
      self.hRate = hRate
    }
  }

  /// The model's name as printed in its coefficient file, e.g. `"WMM-2025"`.
  public let name: String
  /// The decimal year at which the main-field coefficients apply, e.g. 2025.0.
  public let epoch: Double
  /// The decimal years for which the model is published as valid (both ends included).
  public let validityPeriod: ClosedRange<Double>
  /// The highest degree (and order) of the expansion; 12 for the WMM.
  public let maximumDegree: Int

  // Coefficients are stored densely at index n(n+1)/2 + m so synthesis never searches.
  private let g: [Double]
  private let h: [Double]
  private let gRate: [Double]
  private let hRate: [Double]
  // sqrt((2 − δₘ₀)(n − m)!/(n + m)!) for the same index: turns Ferrers functions into Schmidt form.
  private let schmidtFactor: [Double]

  /// The geomagnetic reference radius a of the WMM, in kilometres.
  public static let referenceRadiusKilometers = 6371.2
  /// The WGS-84 semi-major axis, in kilometres.
  public static let wgs84SemiMajorAxisKilometers = 6378.137
  /// The WGS-84 flattening (dimensionless).
  public static let wgs84Flattening = 1 / 298.257223563

  /// Creates a model from Gauss coefficients; orders and degrees that are not listed are zero.
  ///
  /// - Precondition: every row has 1 ≤ degree and 0 ≤ order ≤ degree.
  public init(
    name: String, epoch: Double, validityPeriod: ClosedRange<Double>,
    coefficients: [GaussCoefficient]
  ) {
    let maximumDegree = coefficients.map(\.degree).max() ?? 0
    let count = (maximumDegree + 1) * (maximumDegree + 2) / 2
    var g = [Double](repeating: 0, count: count)
    var h = g
    var gRate = g
    var hRate = g
    for row in coefficients {
      precondition(
        row.degree >= 1 && row.order >= 0 && row.order <= row.degree, "bad (n, m) in \(row)")
      let index = Self.index(row.degree, row.order)
      g[index] = row.g
      h[index] = row.h
      gRate[index] = row.gRate
      hRate[index] = row.hRate
    }
    var schmidtFactor = [Double](repeating: 1, count: count)
    for n in 0...maximumDegree {
      for m in 0...n {
        // (n − m)!/(n + m)! as a running product avoids overflow-prone factorials.
        var ratio = 1.0
        if m > 0 {
          for k in (n - m + 1)...(n + m) { ratio /= Double(k) }
        }
        schmidtFactor[Self.index(n, m)] = (m == 0 ? ratio : 2 * ratio).squareRoot()
      }
    }
    self.name = name
    self.epoch = epoch
    self.validityPeriod = validityPeriod
    self.maximumDegree = maximumDegree
    self.g = g
    self.h = h
    self.gRate = gRate
    self.hRate = hRate
    self.schmidtFactor = schmidtFactor
  }

  /// One (n, m) term of the geocentric field: X′ = −(1/r) ∂V/∂φ′ = +(a/r)^(n+2)(g cos mλ + h sin
  /// mλ) dP/dθ (as dφ′ = −dθ), Y′ = −(1/(r cos φ′)) ∂V/∂λ = (a/r)^(n+2) m (g sin mλ − h cos mλ)
  /// P/sin θ, Z′ = ∂V/∂r = −(n + 1)(a/r)^(n+2)(g cos mλ + h sin mλ) P.
  @inline(__always)
  private func term(
    _ n: Int, _ m: Int, _ radialFactor: Double, _ g: Double, _ h: Double, _ cosine: Double,
    _ sine: Double, _ p: Double, _ dp: Double, _ q: Double
  ) -> SIMD3<Double> {
    let inPhase = g * cosine + h * sine
    let quadrature = g * sine - h * cosine
    return SIMD3(
      radialFactor * inPhase * dp,
      radialFactor * Double(m) * quadrature * q,
      -radialFactor * Double(n + 1) * inPhase * p)
  }

  @inline(__always)
  private static func index(_ n: Int, _ m: Int) -> Int { n * (n + 1) / 2 + m }

  /// Computes the magnetic field in nT at a WGS-84 position and time, with its annual change.
  ///
  /// - Parameters:
  ///   - latitude: Geodetic latitude in degrees, −90…90, north positive.
  ///   - longitude: Longitude in degrees, east positive; any value (the model is periodic).
  ///   - altitudeMeters: Height above the WGS-84 ellipsoid in metres. The model is specified from
  ///     −1 km to 850 km. Height above mean sea level differs by the geoid undulation (under about
  ///     110 m), which changes the field by at most a few nT and the declination negligibly.
  ///   - decimalYear: The time as a decimal year, e.g. 2026.5 (see ``decimalYear(from:)``). Outside
  ///     ``validityPeriod`` the value is still computed, by extrapolation, and flagged.
  /// - Returns: The field components and derived elements. Latitudes beyond ±90° are clamped.
  public func field(
    latitude: Double, longitude: Double, altitudeMeters: Double, decimalYear: Double
  ) -> GeomagneticField {
    let latitudeRadians = min(max(latitude, -90), 90) * .pi / 180
    let longitudeRadians = longitude * .pi / 180
    let heightKilometers = altitudeMeters / 1000

    // 1. Geodetic → geocentric: Cartesian (p, z) on the meridian plane, then radius and latitude.
    let a = Self.wgs84SemiMajorAxisKilometers
    let eccentricitySquared = Self.wgs84Flattening * (2 - Self.wgs84Flattening)
    let sinLatitude = sin(latitudeRadians)
    let cosLatitude = cos(latitudeRadians)
    let primeVerticalRadius = a / (1 - eccentricitySquared * sinLatitude * sinLatitude).squareRoot()
    let p = (primeVerticalRadius + heightKilometers) * cosLatitude
    let z = (primeVerticalRadius * (1 - eccentricitySquared) + heightKilometers) * sinLatitude
    let radius = (p * p + z * z).squareRoot()
    let geocentricLatitude = atan2(z, p)

    // 2.–3. Synthesis with the main-field and the secular-variation coefficients. The field is
    // linear in the coefficients, so the secular-variation sum is exactly the annual change of X′,
    // Y′, Z′.
    let yearsSinceEpoch = decimalYear - epoch
    let sums = synthesize(
      radiusKilometers: radius, geocentricLatitude: geocentricLatitude, longitude: longitudeRadians,
      yearsSinceEpoch: yearsSinceEpoch)

    // 4. Rotate from the geocentric to the geodetic (ellipsoidal) north/down directions.
    let psi = geocentricLatitude - latitudeRadians
    let cosPsi = cos(psi)
    let sinPsi = sin(psi)
    func geodetic(_ v: SIMD3<Double>) -> SIMD3<Double> {
      SIMD3(v.x * cosPsi - v.z * sinPsi, v.y, v.x * sinPsi + v.z * cosPsi)
    }
    return GeomagneticField(
      vector: geodetic(sums.field), annualChange: geodetic(sums.annualChange),
      latitude: latitude, longitude: longitude, decimalYear: decimalYear,
      isWithinValidityPeriod: validityPeriod.contains(decimalYear))
  }

  /// Sums the spherical-harmonic series in the geocentric frame (X′ north, Y′ east, Z′ inward), for
  /// both the time-adjusted coefficients and their rates.
  private func synthesize(
    radiusKilometers r: Double, geocentricLatitude: Double, longitude: Double,
    yearsSinceEpoch: Double
  ) -> (field: SIMD3<Double>, annualChange: SIMD3<Double>) {
    let maximumDegree = self.maximumDegree
    let count = (maximumDegree + 1) * (maximumDegree + 2) / 2
    // Colatitude θ: cos θ = sin φ′, sin θ = cos φ′ ≥ 0.
    let cosTheta = sin(geocentricLatitude)
    let sinTheta = cos(geocentricLatitude)

    // Ferrers associated Legendre functions P(n, m)(cos θ) (no Condon–Shortley phase), their θ
    // derivatives, and Q = P / sin θ for m ≥ 1. Q stays finite at the geographic poles, which is
    // what the east component needs (it carries a 1/cos φ′ factor), so no pole special case is
    // necessary.
    var legendre = [Double](repeating: 0, count: count)
    var legendreDerivative = [Double](repeating: 0, count: count)
    var legendreOverSine = [Double](repeating: 0, count: count)
    legendre[0] = 1
    for m in 0...maximumDegree {
      let mm = Self.index(m, m)
      if m > 0 {
        // Sectoral terms: P(m, m) = (2m − 1) sin θ P(m − 1, m − 1).
        let previous = Self.index(m - 1, m - 1)
        let factor = Double(2 * m - 1)
        legendre[mm] = factor * sinTheta * legendre[previous]
        legendreDerivative[mm] =
          factor * (cosTheta * legendre[previous] + sinTheta * legendreDerivative[previous])
        legendreOverSine[mm] = m == 1 ? 1 : factor * sinTheta * legendreOverSine[previous]
      }
      // Raise the degree: (n − m) P(n, m) = (2n − 1) cos θ P(n − 1, m) − (n + m − 1) P(n − 2, m).
      if m + 1 <= maximumDegree {
        for n in (m + 1)...maximumDegree {
          let current = Self.index(n, m)
          let one = Self.index(n - 1, m)
          let twoDown = n - 2 >= m ? Self.index(n - 2, m) : -1
          let a = Double(2 * n - 1) / Double(n - m)
          let b = Double(n + m - 1) / Double(n - m)
          let p2 = twoDown >= 0 ? legendre[twoDown] : 0
          let dp2 = twoDown >= 0 ? legendreDerivative[twoDown] : 0
          let q2 = twoDown >= 0 ? legendreOverSine[twoDown] : 0
          legendre[current] = a * cosTheta * legendre[one] - b * p2
          legendreDerivative[current] =
            a * (cosTheta * legendreDerivative[one] - sinTheta * legendre[one]) - b * dp2
          legendreOverSine[current] = a * cosTheta * legendreOverSine[one] - b * q2
        }
      }
    }

    // cos mλ and sin mλ by the angle-addition recurrence.
    var cosines = [Double](repeating: 1, count: maximumDegree + 1)
    var sines = [Double](repeating: 0, count: maximumDegree + 1)
    if maximumDegree >= 1 {
      cosines[1] = cos(longitude)
      sines[1] = sin(longitude)
      if maximumDegree >= 2 {
        for m in 2...maximumDegree {
          cosines[m] = cosines[m - 1] * cosines[1] - sines[m - 1] * sines[1]
          sines[m] = sines[m - 1] * cosines[1] + cosines[m - 1] * sines[1]
        }
      }
    }

    var field = SIMD3<Double>(0, 0, 0)
    var annualChange = SIMD3<Double>(0, 0, 0)
    let ratio = Self.referenceRadiusKilometers / r
    var radialFactor = ratio * ratio  // becomes (a/r)^(n+2) inside the loop
    guard maximumDegree >= 1 else { return (field, annualChange) }
    for n in 1...maximumDegree {
      radialFactor *= ratio
      for m in 0...n {
        let i = Self.index(n, m)
        let s = schmidtFactor[i]
        let p = s * legendre[i]
        let dp = s * legendreDerivative[i]
        let q = s * legendreOverSine[i]
        let gNow = g[i] + yearsSinceEpoch * gRate[i]
        let hNow = h[i] + yearsSinceEpoch * hRate[i]
        // The field is linear in the coefficients: the same terms with ġ, ḣ give the annual change.
        field += term(n, m, radialFactor, gNow, hNow, cosines[m], sines[m], p, dp, q)
        annualChange += term(n, m, radialFactor, gRate[i], hRate[i], cosines[m], sines[m], p, dp, q)
      }
    }
    return (field, annualChange)
  }
}
