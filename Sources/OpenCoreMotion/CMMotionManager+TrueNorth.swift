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
  private static let deviceLocationStorage = Locked<GeographicLocation?>(nil)

  /// The device's location, used for the magnetic declination that `.xTrueNorthZVertical` needs.
  ///
  /// An addition to Apple's API: on iOS, Core Motion asks Location Services; here the app tells
  /// us (for example from a GPS or a configuration file). Setting a location makes
  /// `.xTrueNorthZVertical` available to managers whose source has a magnetometer; setting `nil`
  /// falls back to `COREMOTION_LOCATION`. Read when device motion starts.
  public class var deviceLocation: GeographicLocation? {
    get { deviceLocationStorage.withLock { $0 } }
    set {
      deviceLocationStorage.withLock { $0 = newValue }
      if let location = newValue {
        declinationProvider = { magneticDeclination(at: location, date: Date()) }
      } else {
        declinationProvider = declinationProvider(environment: ProcessInfo.processInfo.environment)
      }
    }
  }

  private static let declinationProviderStorage = Locked<(@Sendable () -> Double?)?>(
    declinationProvider(environment: ProcessInfo.processInfo.environment))

  /// Returns the magnetic declination at the device's location in degrees, east positive, or `nil`
  /// when it is not known; `.xTrueNorthZVertical` is available only while it returns a value. Read
  /// when device motion starts. Default: from `COREMOTION_LOCATION` and WMM2025, `nil` when the
  /// variable is unset (or malformed, which is reported once on standard error).
  static var declinationProvider: (@Sendable () -> Double?)? {
    get { declinationProviderStorage.withLock { $0 } }
    set { declinationProviderStorage.withLock { $0 = newValue } }
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
