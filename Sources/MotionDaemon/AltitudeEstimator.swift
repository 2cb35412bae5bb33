// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Relative altitude from barometric pressure (international standard atmosphere) and a simple
/// floor counter: a floor is counted when the altitude has moved ``floorHeight`` from the last
/// floor level while steps are being taken.
///
/// Interim: the shared `RelativeAltitudeFilter`/`FloorCounter` detectors (MotionDetectors) replace
/// this once they exist; the daemon only needs `process(time:pressure:)` and the counts.
struct AltitudeEstimator: Sendable {
  /// Height of one floor, m (Apple documents ≈ 3 m per flight).
  var floorHeight = 3.0
  /// How long after a step the person still counts as walking, s.
  var walkingWindow = 5.0

  private var referenceAltitude: Double?
  private var floorLevel = 0.0
  private var lastStepTime = -Double.infinity
  private(set) var relativeAltitude = 0.0
  private(set) var floorsAscended: UInt64 = 0
  private(set) var floorsDescended: UInt64 = 0

  init() {}

  /// Standard-atmosphere altitude of `pressure` (kPa), m.
  static func altitude(pressure: Double) -> Double {
    44_330.77 * (1 - pow(pressure / 101.325, 0.190_263))
  }

  mutating func noteStep(time: Double) { lastStepTime = time }

  /// Feeds one pressure reading (kPa); returns the relative altitude (m since the first reading).
  mutating func process(time: Double, pressure: Double) -> Double? {
    guard pressure.isFinite, pressure > 0, time.isFinite else { return nil }
    let altitude = Self.altitude(pressure: pressure)
    guard let reference = referenceAltitude else {
      referenceAltitude = altitude
      return 0
    }
    relativeAltitude = altitude - reference
    if time - lastStepTime <= walkingWindow {
      while relativeAltitude - floorLevel >= floorHeight {
        floorLevel += floorHeight
        floorsAscended += 1
      }
      while floorLevel - relativeAltitude >= floorHeight {
        floorLevel -= floorHeight
        floorsDescended += 1
      }
    } else {
      // Lifts and weather drift move the altitude without steps: follow them without counting.
      floorLevel = relativeAltitude
    }
    return relativeAltitude
  }
}
