// SPDX-License-Identifier: Apache-2.0

import Foundation
import Geomagnetism
import XCTest

/// Behaviour of the WMM evaluation beyond the published test values: sign conventions, validity,
/// decimal years, poles, secular variation and derived elements.
final class WorldMagneticModelTests: XCTestCase {
  private let model = WorldMagneticModel.wmm2025

  private func utcDate(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour))!
  }

  func testModelMetadata() {
    XCTAssertEqual(model.name, "WMM-2025")
    XCTAssertEqual(model.epoch, 2025.0)
    XCTAssertEqual(model.validityPeriod, 2025.0...2030.0)
    XCTAssertEqual(model.maximumDegree, 12)
  }

  /// Declination is east positive: NOAA's rows give +15.43° (east) in western Canada and −16.48°
  /// (west) in northern Quebec, the familiar pattern of North American isogonic lines.
  func testDeclinationSignFollowsEastPositiveConvention() throws {
    let westernCanada = try GeographicLocation(latitude: 54, longitude: -120, altitude: 28_000)
    let quebec = try GeographicLocation(latitude: 59, longitude: -77, altitude: 61_000)
    let east = magneticDeclination(at: westernCanada, date: utcDate(2028, 7, 1, 12))
    let west = magneticDeclination(at: quebec, date: utcDate(2027, 1, 1))
    // The dates are within a day of the table's 2028.5 and 2027.0; a day moves D by < 0.001°.
    XCTAssertEqual(east, 15.43, accuracy: 0.01)
    XCTAssertEqual(west, -16.48, accuracy: 0.01)

    // The sign follows from the components: D = atan2(Y east, X north).
    let field = model.field(at: westernCanada, date: utcDate(2028, 7, 1, 12))
    XCTAssertGreaterThan(field.east, 0)
    XCTAssertGreaterThan(field.north, 0)
    XCTAssertEqual(field.declination, atan2(field.east, field.north) * 180 / .pi, accuracy: 1e-12)
  }

  func testValidityFlagAndExtrapolation() {
    func field(_ year: Double) -> GeomagneticField {
      model.field(latitude: 48, longitude: 11, altitudeMeters: 500, decimalYear: year)
    }
    XCTAssertFalse(field(2024.999).isWithinValidityPeriod)
    XCTAssertTrue(field(2025.0).isWithinValidityPeriod)
    XCTAssertTrue(field(2027.3).isWithinValidityPeriod)
    XCTAssertTrue(field(2030.0).isWithinValidityPeriod)
    XCTAssertFalse(field(2030.001).isWithinValidityPeriod)
    XCTAssertFalse(field(2035).isWithinValidityPeriod)

    // Outside the period the model still computes, continuing the same linear secular variation.
    let inside = field(2030.0)
    let outside = field(2031.0)
    XCTAssertTrue(
      outside.vector.x.isFinite && outside.vector.y.isFinite && outside.vector.z.isFinite)
    let step = outside.vector - inside.vector
    for axis in 0..<3 {
      // Linear in time, so one year later differs by exactly the annual change (float rounding
      // only).
      XCTAssertEqual(step[axis], inside.annualChange[axis], accuracy: 1e-6)
    }
  }

  func testDecimalYear() {
    XCTAssertEqual(
      WorldMagneticModel.decimalYear(from: utcDate(2025, 1, 1)), 2025.0, accuracy: 1e-12)
    XCTAssertEqual(
      WorldMagneticModel.decimalYear(from: utcDate(2027, 1, 1)), 2027.0, accuracy: 1e-12)
    // 2028 is a leap year: 1 July starts day 183 of 366.
    XCTAssertEqual(
      WorldMagneticModel.decimalYear(from: utcDate(2028, 7, 1)), 2028 + 182.0 / 366, accuracy: 1e-12
    )
    XCTAssertEqual(
      WorldMagneticModel.decimalYear(from: utcDate(2026, 7, 2, 12)), 2026 + 182.5 / 365,
      accuracy: 1e-12)
    XCTAssertEqual(
      WorldMagneticModel.decimalYear(from: utcDate(1969, 7, 2)), 1969 + 182.0 / 365, accuracy: 1e-12
    )
    XCTAssertEqual(
      WorldMagneticModel.decimalYear(from: utcDate(2000, 3, 1)), 2000 + 60.0 / 366, accuracy: 1e-12)
    let lastSecond = utcDate(2026, 12, 31, 23).addingTimeInterval(3599)
    let decimal = WorldMagneticModel.decimalYear(from: lastSecond)
    XCTAssertLessThan(decimal, 2027)
    XCTAssertGreaterThan(decimal, 2027 - 2.0 / (365 * 86_400))
  }

  func testDateAndDecimalYearEntryPointsAgree() throws {
    let location = try GeographicLocation(latitude: -33.87, longitude: 151.21, altitude: 40)
    let date = utcDate(2026, 10, 1)
    let byDate = model.field(at: location, date: date)
    let byYear = model.field(
      latitude: -33.87, longitude: 151.21, altitudeMeters: 40,
      decimalYear: WorldMagneticModel.decimalYear(from: date))
    XCTAssertEqual(byDate, byYear)
    XCTAssertEqual(magneticDeclination(at: location, date: date), byYear.declination)
    XCTAssertEqual(model.magneticDeclination(at: location, date: date), byYear.declination)
  }

  /// At a geographic pole the east component has a 0/0 form; it must equal the limit from nearby.
  func testGeographicPolesAreFiniteAndContinuous() {
    for latitude in [90.0, -90.0] {
      let pole = model.field(
        latitude: latitude, longitude: 30, altitudeMeters: 0, decimalYear: 2026.5)
      let near = model.field(
        latitude: latitude * (1 - 1e-9), longitude: 30, altitudeMeters: 0, decimalYear: 2026.5)
      for axis in 0..<3 {
        XCTAssertTrue(pole.vector[axis].isFinite, "pole \(latitude)")
        // 1e-9 relative in latitude is ~1 cm; the field cannot change by 1e-3 nT over that.
        XCTAssertEqual(
          pole.vector[axis], near.vector[axis], accuracy: 1e-3, "pole \(latitude) axis \(axis)")
      }
      XCTAssertGreaterThan(pole.horizontalIntensity, 100)
    }
  }

  func testLongitudeIsPeriodic() {
    let a = model.field(latitude: 30, longitude: -170, altitudeMeters: 0, decimalYear: 2027)
    let b = model.field(latitude: 30, longitude: 190, altitudeMeters: 0, decimalYear: 2027)
    for axis in 0..<3 { XCTAssertEqual(a.vector[axis], b.vector[axis], accuracy: 1e-8) }
  }

  /// The derived rates (Ḣ, Ḟ, İ, Ḋ) must match numerical derivatives of H, F, I and D.
  func testAnnualChangeOfDerivedElementsMatchesFiniteDifferences() {
    let step = 1e-3  // years; central differences of smooth functions, error ~ step² × curvature
    for (latitude, longitude) in [(47.0, 8.0), (-36.0, -137.0), (80.0, -96.0), (0.0, 120.0)] {
      let center = model.field(
        latitude: latitude, longitude: longitude, altitudeMeters: 1000, decimalYear: 2027)
      let before = model.field(
        latitude: latitude, longitude: longitude, altitudeMeters: 1000, decimalYear: 2027 - step)
      let after = model.field(
        latitude: latitude, longitude: longitude, altitudeMeters: 1000, decimalYear: 2027 + step)
      func rate(_ value: (GeomagneticField) -> Double) -> Double {
        (value(after) - value(before)) / (2 * step)
      }
      let label = "(\(latitude), \(longitude))"
      XCTAssertEqual(center.northAnnualChange, rate(\.north), accuracy: 1e-6, label)
      XCTAssertEqual(center.eastAnnualChange, rate(\.east), accuracy: 1e-6, label)
      XCTAssertEqual(center.downAnnualChange, rate(\.down), accuracy: 1e-6, label)
      XCTAssertEqual(
        center.horizontalIntensityAnnualChange, rate(\.horizontalIntensity), accuracy: 1e-4, label)
      XCTAssertEqual(
        center.totalIntensityAnnualChange, rate(\.totalIntensity), accuracy: 1e-4, label)
      XCTAssertEqual(center.declinationAnnualChange, rate(\.declination), accuracy: 1e-6, label)
      XCTAssertEqual(center.inclinationAnnualChange, rate(\.inclination), accuracy: 1e-6, label)
    }
  }

  func testSecularVariationOfTheDipoleDrivesTheRates() {
    // Sanity against the coefficients: at the equator on the prime meridian the field is dominated
    // by −g₁₀ (north), and ġ₁₀ = +12 nT/yr weakens the dipole, so X must decrease over time.
    let field = model.field(latitude: 0, longitude: 0, altitudeMeters: 0, decimalYear: 2025)
    XCTAssertGreaterThan(field.north, 20_000)
    XCTAssertLessThan(field.northAnnualChange, 0)
  }

  func testGridVariationAndCompassReliability() {
    let arctic = model.field(latitude: 80, longitude: 20, altitudeMeters: 0, decimalYear: 2026)
    XCTAssertEqual(arctic.gridVariation!, arctic.declination - 20, accuracy: 1e-12)
    let antarctic = model.field(latitude: -80, longitude: 240, altitudeMeters: 0, decimalYear: 2026)
    var expected = antarctic.declination + 240 - 360
    if expected <= -180 { expected += 360 }
    XCTAssertEqual(antarctic.gridVariation!, expected, accuracy: 1e-9)
    XCTAssertTrue((-180...180).contains(antarctic.gridVariation!))
    XCTAssertNil(
      model.field(latitude: 40, longitude: 20, altitudeMeters: 0, decimalYear: 2026).gridVariation)

    // Mid-latitudes: H ≈ 20 000 nT, normal. NOAA's row at 89° N, −121° has H = 1504 nT: blackout.
    XCTAssertEqual(
      model.field(latitude: 48, longitude: 11, altitudeMeters: 0, decimalYear: 2026)
        .compassReliability, .normal)
    XCTAssertEqual(
      model.field(latitude: 89, longitude: -121, altitudeMeters: 28_000, decimalYear: 2025)
        .compassReliability,
      .blackout)
    // NOAA's row at 80° N, −96°, 48 km has X = 1875.98, Y = −1079.27 nT, so H ≈ 2164 nT: caution.
    XCTAssertEqual(
      model.field(latitude: 80, longitude: -96, altitudeMeters: 48_000, decimalYear: 2025)
        .compassReliability,
      .caution)
  }

  /// A date an app computed may be NaN or absurd: the decimal year is then NaN or an
  /// approximation, the field an extrapolation flagged as such, and nothing traps (the calendar
  /// conversion of 1e300 s or NaN trapped on `Int(_:)`).
  func testNonFiniteAndFarDatesDoNotTrap() throws {
    let location = try GeographicLocation(parsing: "48.8584,2.2945,35")
    let model = WorldMagneticModel.wmm2025
    XCTAssertTrue(WorldMagneticModel.decimalYear(from: Date(timeIntervalSince1970: .nan)).isNaN)
    for seconds in [Double.nan, .infinity, -.infinity, 1e300, -1e300, 1e20] {
      let date = Date(timeIntervalSince1970: seconds)
      XCTAssertFalse(model.field(at: location, date: date).isWithinValidityPeriod, "\(seconds)")
      _ = model.magneticDeclination(at: location, date: date)
    }
    // A million years out is still the calendar's exact year; beyond, the mean year's estimate.
    XCTAssertEqual(
      WorldMagneticModel.decimalYear(from: Date(timeIntervalSince1970: 0)), 1970, accuracy: 1e-12)
    XCTAssertEqual(
      WorldMagneticModel.decimalYear(from: Date(timeIntervalSince1970: 1e20)),
      1970 + 1e20 / (365.2425 * 86_400), accuracy: 1e6)
  }
}
