// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// The kinds of IIO channels the backend reads, named by the kernel's channel type.
public enum IIOChannelKind: String, CaseIterable, Hashable, Sendable {
  /// `in_accel_*`: acceleration, m/s² after scale (sign per driver, see ``IIOConfiguration``).
  case accelerometer = "accel"
  /// `in_anglvel_*`: angular velocity, rad/s after scale.
  case gyroscope = "anglvel"
  /// `in_magn_*`: magnetic field, gauss after scale.
  case magnetometer = "magn"
  /// `in_pressure*`: pressure, kPa after scale.
  case pressure = "pressure"
  /// `in_temp*`: temperature, milli-degrees Celsius after scale.
  case temperature = "temp"
  /// `in_timestamp`: the buffer's timestamp channel, nanoseconds.
  case timestamp = "timestamp"

  /// Whether channels of this kind come as x, y, z axes.
  public var isVector: Bool {
    self == .accelerometer || self == .gyroscope || self == .magnetometer
  }

  /// The `SensorSet` member this kind feeds (empty for the timestamp).
  public var sensor: SensorSet {
    switch self {
    case .accelerometer: return .accelerometer
    case .gyroscope: return .gyroscope
    case .magnetometer: return .magnetometer
    case .pressure: return .barometer
    case .temperature: return .thermometer
    case .timestamp: return []
    }
  }

  /// The factor from the kernel's unit to `MotionSample`'s: 1 for m/s², rad/s and kPa; 100 µT
  /// per gauss; 0.001 °C per milli-degree.
  public var unitFactor: Double {
    switch self {
    case .magnetometer: return 100
    case .temperature: return 0.001
    default: return 1
    }
  }

  /// The kernel's unit after `(raw + offset) × scale`.
  public var kernelUnit: String {
    switch self {
    case .accelerometer: return "m/s²"
    case .gyroscope: return "rad/s"
    case .magnetometer: return "G"
    case .pressure: return "kPa"
    case .temperature: return "m°C"
    case .timestamp: return "ns"
    }
  }

  /// The motion kinds in a fixed order, for listings.
  static let motionKinds: [IIOChannelKind] = [
    .accelerometer, .gyroscope, .magnetometer, .pressure, .temperature,
  ]
}
