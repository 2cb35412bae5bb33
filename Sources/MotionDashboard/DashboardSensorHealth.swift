// SPDX-License-Identifier: Apache-2.0

/// A ``StreamHealthMeter`` per sensor the source has delivered.
///
/// Four stored meters rather than a dictionary keyed by name: every sample notes up to three of
/// them, and hashing the names showed in profiles at 100 Hz.
package struct DashboardSensorHealth: Sendable {
  /// The sensors, by the names the frames use.
  package enum Sensor: String, Sendable, CaseIterable {
    case accelerometer, barometer, gyroscope, magnetometer
  }

  private var accelerometer: StreamHealthMeter?
  private var barometer: StreamHealthMeter?
  private var gyroscope: StreamHealthMeter?
  private var magnetometer: StreamHealthMeter?

  package init() {}

  /// Notes a sample of `sensor` at `time` (s, source clock); the first one creates its meter.
  package mutating func note(_ sensor: Sensor, time: Double) {
    switch sensor {
    case .accelerometer: Self.note(time, in: &accelerometer)
    case .barometer: Self.note(time, in: &barometer)
    case .gyroscope: Self.note(time, in: &gyroscope)
    case .magnetometer: Self.note(time, in: &magnetometer)
    }
  }

  private static func note(_ time: Double, in meter: inout StreamHealthMeter?) {
    if meter == nil { meter = StreamHealthMeter() }
    meter?.note(time: time)
  }

  /// The meter of `sensor`, if it delivered a sample.
  package subscript(sensor: Sensor) -> StreamHealthMeter? {
    switch sensor {
    case .accelerometer: accelerometer
    case .barometer: barometer
    case .gyroscope: gyroscope
    case .magnetometer: magnetometer
    }
  }

  /// The meters of the sensors that delivered samples, by name in alphabetical order.
  package var meters: [(name: String, meter: StreamHealthMeter)] {
    Sensor.allCases.compactMap { sensor in self[sensor].map { (sensor.rawValue, $0) } }
  }
}
