// SPDX-License-Identifier: Apache-2.0

import Foundation

extension WorldMagneticModel {
  /// Converts a date to a decimal year in UTC (Gregorian calendar), e.g. 2026-07-02T12:00Z → ≈
  /// 2026.5.
  ///
  /// The fraction is the elapsed time since 1 January 00:00 UTC divided by the length of that year
  /// (365 or 366 days), so it is continuous across a day. NOAA's calculators count whole days
  /// (day-of-year − 1); the difference is under one day, i.e. below 0.003 year, which moves the
  /// declination by well under 0.001°.
  ///
  /// A date more than a million years from 1970 gets the mean Gregorian year's approximation
  /// (the field there is an extrapolation by a factor of 10⁵ anyway; the calendar's integer
  /// arithmetic would overflow), and a NaN date a NaN year: a date computed by an app must not
  /// trap here. ``GeomagneticField/isWithinValidityPeriod`` is `false` for both.
  public static func decimalYear(from date: Date) -> Double {
    let seconds = date.timeIntervalSince1970
    let secondsPerDay = 86_400.0
    let meanYears = seconds / (365.2425 * secondsPerDay)
    guard Swift.abs(meanYears) < 1e6 else { return 1970 + meanYears }  // NaN too
    // Estimate with the mean Gregorian year, then correct by at most one year either way.
    var year = 1970 + Int(meanYears.rounded(.down))
    while Double(daysFromEpoch(toJanuaryFirstOf: year)) * secondsPerDay > seconds { year -= 1 }
    while Double(daysFromEpoch(toJanuaryFirstOf: year + 1)) * secondsPerDay <= seconds { year += 1 }
    let start = Double(daysFromEpoch(toJanuaryFirstOf: year)) * secondsPerDay
    let end = Double(daysFromEpoch(toJanuaryFirstOf: year + 1)) * secondsPerDay
    return Double(year) + (seconds - start) / (end - start)
  }

  /// Days from 1970-01-01 to 1 January of `year` in the proleptic Gregorian calendar.
  private static func daysFromEpoch(toJanuaryFirstOf year: Int) -> Int {
    // Leap years before `year`, counted from year 1: ⌊(y−1)/4⌋ − ⌊(y−1)/100⌋ + ⌊(y−1)/400⌋.
    func leapYearsBefore(_ y: Int) -> Int {
      let x = y - 1
      return floorDivide(x, 4) - floorDivide(x, 100) + floorDivide(x, 400)
    }
    return 365 * (year - 1970) + leapYearsBefore(year) - leapYearsBefore(1970)
  }

  private static func floorDivide(_ a: Int, _ b: Int) -> Int {
    let quotient = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
  }

  /// Computes the field at a location and date (UTC); see
  /// ``field(latitude:longitude:altitudeMeters:decimalYear:)``.
  public func field(at location: GeographicLocation, date: Date) -> GeomagneticField {
    field(
      latitude: location.latitude, longitude: location.longitude, altitudeMeters: location.altitude,
      decimalYear: Self.decimalYear(from: date))
  }

  /// The magnetic declination at a location and date in degrees, −180…180, **east positive**.
  ///
  /// A compass needle (magnetic north) points `declination` degrees east of true (geographic)
  /// north; a negative value means west. Hence true heading = magnetic heading + declination, and a
  /// yaw measured from magnetic north is turned into one from true north by the same rotation about
  /// the vertical. Dates outside ``validityPeriod`` are extrapolated; check
  /// ``GeomagneticField/isWithinValidityPeriod`` via ``field(at:date:)`` when that matters.
  public func magneticDeclination(at location: GeographicLocation, date: Date) -> Double {
    field(at: location, date: date).declination
  }
}

/// The magnetic declination from WMM2025 at a location and date in degrees, −180…180, **east
/// positive**.
///
/// A compass needle points `declination` degrees east of true north (west when negative), so
/// true heading = magnetic heading + declination. Equivalent to
/// `WorldMagneticModel.wmm2025.magneticDeclination(at:date:)`; outside 2025.0–2030.0 the value is
/// an extrapolation.
public func magneticDeclination(at location: GeographicLocation, date: Date) -> Double {
  WorldMagneticModel.wmm2025.magneticDeclination(at: location, date: date)
}
