// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion

/// What turns pressure into altitude above sea level for `CMAltimeter`'s absolute altitude.
///
/// Apple combines the barometer with GPS; a Linux machine needs to be told one of:
/// - the sea-level pressure (QNH) in kPa, in `COREMOTION_SEA_LEVEL_PRESSURE` (for example
///   `101.8`, from a weather report): altitude is the standard-atmosphere height for that
///   sea-level pressure;
/// - the device's location with its altitude (`CMMotionManager.deviceLocation`, else
///   `COREMOTION_LOCATION=lat,lon,altitude_m`): the first reading taken with that altitude is
///   taken to be at it (above sea level, as Apple's absolute altitude is), and later readings move
///   from it by the standard-atmosphere height difference. The anchor is kept for an hour by the
///   barometer's history (the source's, which the daemon-backed history shares): every later
///   start within it reads the change since, so a user who started updates at street level and
///   starts them again three floors up reads three floors up, not the street's altitude again.
///   Another altitude (the device moved), or a start after the hour (weather has moved the
///   pressure by then), anchors afresh. Other processes anchor their own, the daemon's
///   clients too. A location without an altitude (`lat,lon`, enough for true north) does not
///   count: its 0 m is nobody's measurement.
/// Without either, absolute altitude is not available.
enum AltitudeReference: Equatable, Sendable {
  /// Sea-level pressure, kPa.
  case seaLevelPressure(Double)
  /// Altitude of the device at the first reading taken with it, m.
  case startAltitude(Double)

  static let seaLevelPressureVariable = "COREMOTION_SEA_LEVEL_PRESSURE"
  /// Accepted sea-level pressures, kPa (the recorded extremes are about 87 and 108.4 kPa).
  static let seaLevelPressureRange: ClosedRange<Double> = 85...110

  /// One standard deviation of the altitude, m: a sea-level pressure that is 0.1 kPa off (a typical
  /// weather-report error) moves the altitude by about 8 m; a location's altitude is rarely better.
  static let accuracy: Double = 10
  /// The resolution worth showing, m (the barometer resolves about 0.1 m).
  static let precision: Double = 0.1

  /// The reference `environment` (and the app's device location) gives, or `nil`.
  static func current(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> AltitudeReference? {
    if let text = environment[seaLevelPressureVariable],
      let value = Double(text.trimmingCharacters(in: .whitespaces)),
      seaLevelPressureRange.contains(value)
    {
      return .seaLevelPressure(value)
    }
    if let location = CMMotionManager.deviceLocation
      ?? (try? GeographicLocation.fromEnvironment(environment)),
      location.isAltitudeKnown
    {
      return .startAltitude(location.altitude)
    }
    return nil
  }
}
