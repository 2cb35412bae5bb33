// SPDX-License-Identifier: Apache-2.0

import Foundation
import Geomagnetism
import Logging
import MotionSensors

// True north: `.xTrueNorthZVertical` turns the magnetic-north attitude by the magnetic declination
// at the device's location. Linux machines rarely know where they are, so the location comes from
// the app (``CMMotionManager/deviceLocation``, an addition) or from the `COREMOTION_LOCATION`
// environment variable (`lat,lon[,altitude_m]`), and the declination from the World Magnetic Model
// (WMM2025) at the current date. Without a location, true north is not available, as on an Apple
// device without Location Services.
extension CMMotionManager {
  /// The location and the declination provider, in one lock: set apart, two concurrent sets of
  /// ``deviceLocation`` could leave one location in place with the other's declination.
  private struct TrueNorthSettings {
    var location: GeographicLocation?
    var declinationProvider: (@Sendable () -> Double?)?
  }

  private static let trueNorthSettings = Locked(
    TrueNorthSettings(location: nil, declinationProvider: environmentDeclinationProvider))

  /// The provider for `COREMOTION_LOCATION`, made on first use: the variable is parsed, and a
  /// malformed one logged, once per process rather than at every `deviceLocation = nil`.
  private static let environmentDeclinationProvider = declinationProvider(
    environment: ProcessInfo.processInfo.environment)

  /// The device's location, used for the magnetic declination that `.xTrueNorthZVertical` needs.
  ///
  /// An addition to Apple's API: on iOS, Core Motion asks Location Services; here the app tells
  /// us (for example from a GPS or a configuration file). Setting a location makes
  /// `.xTrueNorthZVertical` available to managers whose source has a magnetometer; setting `nil`
  /// falls back to `COREMOTION_LOCATION` (read once, when true north is first used). Read when
  /// device motion starts. Safe to set from any thread.
  public class var deviceLocation: GeographicLocation? {
    get { trueNorthSettings.withLock { $0.location } }
    set {
      let provider: (@Sendable () -> Double?)?
      if let location = newValue {
        provider = { magneticDeclination(at: location, date: Date()) }
      } else {
        provider = environmentDeclinationProvider
      }
      trueNorthSettings.withLock {
        $0 = TrueNorthSettings(location: newValue, declinationProvider: provider)
      }
    }
  }

  /// Returns the magnetic declination at the device's location in degrees, east positive, or `nil`
  /// when it is not known; `.xTrueNorthZVertical` is available only while it returns a value. Read
  /// when device motion starts. Default: from `COREMOTION_LOCATION` and WMM2025, `nil` when the
  /// variable is unset or malformed (a malformed one is logged once, as an error, to the
  /// `OpenCoreMotion` swift-log logger).
  static var declinationProvider: (@Sendable () -> Double?)? {
    get { trueNorthSettings.withLock { $0.declinationProvider } }
    set { trueNorthSettings.withLock { $0.declinationProvider = newValue } }
  }

  /// The provider for the location in `environment[COREMOTION_LOCATION]`: WMM2025's declination
  /// there at the time of each call; `nil` without a (valid) location.
  static func declinationProvider(environment: [String: String]) -> (@Sendable () -> Double?)? {
    let location: GeographicLocation
    do {
      guard let parsed = try GeographicLocation.fromEnvironment(environment) else { return nil }
      location = parsed
    } catch {
      Logger.openCoreMotion.error("\(error); true north is not available")
      return nil
    }
    return { magneticDeclination(at: location, date: Date()) }
  }

  /// The declination from ``declinationProvider`` when it is finite.
  package static func currentDeclination() -> Double? {
    guard let value = declinationProvider?(), value.isFinite else { return nil }
    return value
  }
}
