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

  /// The largest magnitude a reading of this kind can have in `MotionSample`'s unit, per axis:
  /// beyond it a value is no measurement but a broken attribute (an absurd `_raw`, `_scale` or
  /// `_offset` that still parses, `1e300`), and is treated as an infinite one. Each is far above
  /// what any sensor of the kind measures, and far below where arithmetic on it overflows:
  /// - accelerometer 1000 g (9806.65 m/s²): the widest IIO accelerometers (adxl375, h3lis331dl)
  ///   measure ±200 and ±400 g;
  /// - gyroscope 1000 rad/s (57 000 °/s), as the stride tracker's ceiling: IIO gyroscopes measure
  ///   a few thousand °/s (tens of rad/s);
  /// - magnetometer 10⁶ µT (1 T, a strong magnet's surface): the Earth's field is about 50 µT,
  ///   and magnetometers saturate at a few thousand µT;
  /// - pressure 10 000 kPa (100 bar): barometers read about 100 kPa, depth sensors a few thousand;
  /// - temperature 10 000 °C: no die or ambient thermometer comes near.
  var measurableMagnitude: Double {
    switch self {
    case .accelerometer: return 1000 * 9.806_65
    case .gyroscope: return 1000
    case .magnetometer: return 1_000_000
    case .pressure: return 10_000
    case .temperature: return 10_000
    case .timestamp: return .infinity
    }
  }

  /// `MotionSample`'s unit for this kind, for messages.
  var sampleUnit: String {
    switch self {
    case .accelerometer: return "m/s²"
    case .gyroscope: return "rad/s"
    case .magnetometer: return "µT"
    case .pressure: return "kPa"
    case .temperature: return "°C"
    case .timestamp: return "s"
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
