// SPDX-License-Identifier: Apache-2.0

import MotionDetectors

/// The daemon's relative altitude and walked floors: the same `RelativeAltitudeFilter` and
/// `FloorCounter` that `CMAltimeter` and `CMPedometer` run in process, so an app gets the same
/// figures whether it reads the daemon or its own sensors.
struct AltitudeEstimator: Sendable {
  private var filter = RelativeAltitudeFilter()
  private var floors = FloorCounter()

  init() {}

  /// The latest relative altitude, m since the first reading.
  var relativeAltitude: Double { filter.relativeAltitude }
  var floorsAscended: UInt64 { UInt64(floors.floorsAscended) }
  var floorsDescended: UInt64 { UInt64(floors.floorsDescended) }

  mutating func noteStep(time: Double) { floors.noteStep(time: time) }

  /// Feeds one pressure reading (kPa); returns the relative altitude (m since the first reading),
  /// or `nil` for a reading that is not finite and positive.
  mutating func process(time: Double, pressure: Double) -> Double? {
    guard let altitude = filter.process(time: time, pressure: pressure) else { return nil }
    _ = floors.process(time: time, pressure: pressure)
    return altitude
  }
}
