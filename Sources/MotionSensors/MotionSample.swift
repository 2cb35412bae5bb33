// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// What one sensor source measured at one instant, in SI units and the sensor's own sign.
///
/// A synchronised IMU fills every field it has at each instant; a source whose sensors tick
/// independently fills only the field that ticked. Fields a source does not have stay `nil`.
///
/// Units and signs (converted to Core Motion's only at the API boundary, in `OpenCoreMotion`):
/// - ``accelerometer``: **specific force** in m/s², sensor frame. At rest the up-pointing axis
///   reads about +9.81 (a device lying face up reads (0, 0, +9.81)).
/// - ``gyroscope``: angular velocity in rad/s, sensor frame, right-hand rule, *raw* (biased).
/// - ``magnetometer``: magnetic flux density in µT, sensor frame, raw (hard/soft iron included).
/// - ``pressure``: barometric pressure in kPa. ``temperature``: °C.
/// - ``timestamp``: seconds on the source's clock (boot time for live hardware; the recording's or
///   the simulation's own clock otherwise).
public struct MotionSample: Sendable, Equatable {
  /// Seconds on the source's clock.
  public var timestamp: Double
  /// Specific force in m/s² (sensor frame; +9.81 on the up-pointing axis at rest).
  public var accelerometer: SIMD3<Double>?
  /// Raw angular velocity in rad/s (sensor frame, right-hand rule).
  public var gyroscope: SIMD3<Double>?
  /// Raw magnetic field in µT (sensor frame).
  public var magnetometer: SIMD3<Double>?
  /// Barometric pressure in kPa.
  public var pressure: Double?
  /// Sensor temperature in °C.
  public var temperature: Double?
  /// The true state behind the sample, when the source knows it (simulator, ground-truthed data).
  public var groundTruth: GroundTruth?

  /// Creates a sample; omitted sensors are `nil`.
  public init(
    timestamp: Double,
    accelerometer: SIMD3<Double>? = nil,
    gyroscope: SIMD3<Double>? = nil,
    magnetometer: SIMD3<Double>? = nil,
    pressure: Double? = nil,
    temperature: Double? = nil,
    groundTruth: GroundTruth? = nil
  ) {
    self.timestamp = timestamp
    self.accelerometer = accelerometer
    self.gyroscope = gyroscope
    self.magnetometer = magnetometer
    self.pressure = pressure
    self.temperature = temperature
    self.groundTruth = groundTruth
  }

  /// The sensors that have a value in this sample.
  public var sensors: SensorSet {
    SensorSet(
      accelerometer: accelerometer != nil, gyroscope: gyroscope != nil,
      magnetometer: magnetometer != nil,
      pressure: pressure != nil, temperature: temperature != nil)
  }

  /// The sample with only the readings of `sensors` (the others `nil`); timestamp and ground
  /// truth are kept.
  public func keeping(_ sensors: SensorSet) -> MotionSample {
    var copy = self
    if !sensors.contains(.accelerometer) { copy.accelerometer = nil }
    if !sensors.contains(.gyroscope) { copy.gyroscope = nil }
    if !sensors.contains(.magnetometer) { copy.magnetometer = nil }
    if !sensors.contains(.barometer) { copy.pressure = nil }
    if !sensors.contains(.thermometer) { copy.temperature = nil }
    return copy
  }

  /// Whether the timestamp and every present value are finite.
  public var isFinite: Bool {
    timestamp.isFinite && (accelerometer?.isFinite ?? true) && (gyroscope?.isFinite ?? true)
      && (magnetometer?.isFinite ?? true) && (pressure?.isFinite ?? true)
      && (temperature?.isFinite ?? true)
  }
}

/// The true state of the device at a sample, for tests and accuracy evaluation.
///
/// Every field is optional: the simulator knows all of them, a ground-truthed dataset such as
/// BROAD knows only the attitude (and not while the optical markers are occluded).
public struct GroundTruth: Sendable, Equatable {
  /// The true attitude, sensor to earth, in OpenCoreMotion's NWU earth frame (x = magnetic north).
  public var earthFromSensor: Quaternion?
  /// The true angular velocity in rad/s, sensor frame.
  public var angularVelocity: SIMD3<Double>?
  /// The gyroscope bias in rad/s, sensor frame (raw gyroscope = true rate + bias + noise).
  public var gyroscopeBias: SIMD3<Double>?
  /// Gravitational acceleration in m/s², sensor frame, pointing down (face up: (0, 0, −9.81)).
  public var gravity: SIMD3<Double>?
  /// The device's kinematic acceleration in m/s², sensor frame (zero at rest).
  ///
  /// Specific force = `linearAcceleration − gravity`; Core Motion's `userAcceleration` is
  /// `−linearAcceleration / g`.
  public var linearAcceleration: SIMD3<Double>?
  /// Position in metres in the earth frame (NWU), relative to the scenario's origin.
  public var position: SIMD3<Double>?
  /// Whether the sample belongs to an evaluated movement phase (BROAD's `movement` column).
  public var isMovementPhase: Bool?

  /// Creates a ground truth; omitted fields are unknown.
  public init(
    earthFromSensor: Quaternion? = nil,
    angularVelocity: SIMD3<Double>? = nil,
    gyroscopeBias: SIMD3<Double>? = nil,
    gravity: SIMD3<Double>? = nil,
    linearAcceleration: SIMD3<Double>? = nil,
    position: SIMD3<Double>? = nil,
    isMovementPhase: Bool? = nil
  ) {
    self.earthFromSensor = earthFromSensor
    self.angularVelocity = angularVelocity
    self.gyroscopeBias = gyroscopeBias
    self.gravity = gravity
    self.linearAcceleration = linearAcceleration
    self.position = position
    self.isMovementPhase = isMovementPhase
  }
}

/// A set of sensor kinds.
public struct SensorSet: OptionSet, Hashable, Sendable, CustomStringConvertible {
  /// One bit per sensor kind, as below (the daemon's protocol uses the same bits).
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// The accelerometer: specific force, m/s² (``MotionSample/accelerometer``).
  public static let accelerometer = SensorSet(rawValue: 1 << 0)
  /// The gyroscope: angular velocity, rad/s (``MotionSample/gyroscope``).
  public static let gyroscope = SensorSet(rawValue: 1 << 1)
  /// The magnetometer: magnetic field, µT (``MotionSample/magnetometer``).
  public static let magnetometer = SensorSet(rawValue: 1 << 2)
  /// The barometer: pressure, kPa (``MotionSample/pressure``).
  public static let barometer = SensorSet(rawValue: 1 << 3)
  /// The sensor's thermometer: temperature, °C (``MotionSample/temperature``).
  public static let thermometer = SensorSet(rawValue: 1 << 4)

  /// Accelerometer and gyroscope.
  public static let inertial: SensorSet = [.accelerometer, .gyroscope]
  /// Accelerometer, gyroscope and magnetometer.
  public static let nineAxis: SensorSet = [.accelerometer, .gyroscope, .magnetometer]

  /// The sensors behind the reading fields that are present, named as in ``MotionSample``
  /// (`pressure` comes from the barometer, `temperature` from the thermometer).
  init(accelerometer: Bool, gyroscope: Bool, magnetometer: Bool, pressure: Bool, temperature: Bool)
  {
    self = []
    if accelerometer { insert(.accelerometer) }
    if gyroscope { insert(.gyroscope) }
    if magnetometer { insert(.magnetometer) }
    if pressure { insert(.barometer) }
    if temperature { insert(.thermometer) }
  }

  /// The set's members by name, in a fixed order.
  public var names: [String] {
    var result: [String] = []
    if contains(.accelerometer) { result.append("accelerometer") }
    if contains(.gyroscope) { result.append("gyroscope") }
    if contains(.magnetometer) { result.append("magnetometer") }
    if contains(.barometer) { result.append("barometer") }
    if contains(.thermometer) { result.append("thermometer") }
    return result
  }

  public var description: String { "[" + names.joined(separator: ", ") + "]" }
}
