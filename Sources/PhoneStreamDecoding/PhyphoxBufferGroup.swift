// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// The phyphox buffers that hold one sensor's readings: a time buffer and its value buffers.
///
/// phyphox experiments write each sensor into named buffers (the "Acceleration with g" experiment:
/// `acc_time`, `accX`, `accY`, `accZ`); values at the same index belong together. Times are
/// experiment time in seconds (since the measurement first started, pauses excluded).
public struct PhyphoxBufferGroup: Sendable, Equatable {
  /// The sensor a group feeds, with the unit phyphox uses for it.
  public enum Sensor: String, Sendable, Equatable, CaseIterable {
    /// Acceleration *with* g, m/s²: phyphox reports specific force (+9.81 up at rest) on both
    /// platforms.
    case accelerometer
    /// Rotation rate, rad/s.
    case gyroscope
    /// Magnetic field, µT.
    case magnetometer
    /// Pressure, hPa (converted to kPa).
    case pressure
  }

  /// The sensor.
  public var sensor: Sensor
  /// The time buffer's name.
  public var time: String
  /// The value buffers' names: x, y, z (one name for pressure).
  public var components: [String]

  /// Creates a group.
  public init(sensor: Sensor, time: String, components: [String]) {
    self.sensor = sensor
    self.time = time
    self.components = components
  }

  /// The buffer names of phyphox's raw-sensor experiments, used when `/config` is unavailable
  /// (phyphox before 1.1.6). Whether `acc*` holds acceleration with or without g cannot be told
  /// without `/config`; it is assumed to be with g.
  public static let standard: [PhyphoxBufferGroup] = [
    PhyphoxBufferGroup(
      sensor: .accelerometer, time: "acc_time", components: ["accX", "accY", "accZ"]),
    PhyphoxBufferGroup(sensor: .gyroscope, time: "gyr_time", components: ["gyrX", "gyrY", "gyrZ"]),
    PhyphoxBufferGroup(
      sensor: .magnetometer, time: "mag_time", components: ["magX", "magY", "magZ"]),
  ]

  /// Finds the groups in a `/config` answer from the experiment's `inputs` (each input lists its
  /// components as single-entry objects: `{"x":"accX"}`, `{"t":"acc_time"}`, …).
  ///
  /// Returns the groups and notes for people (an experiment that only measures acceleration
  /// *without* g, which is not specific force; one that lacks the accelerometer, the gyroscope or
  /// both, which gives no device motion).
  package static func discover(
    in config: PhoneJSON
  ) -> (groups: [PhyphoxBufferGroup], notes: [String]) {
    var groups: [PhyphoxBufferGroup] = []
    var notes: [String] = []
    var sawLinearAcceleration = false
    for input in config["inputs"]?.arrayValue ?? [] {
      guard let source = input["source"]?.stringValue else { continue }
      var outputs: [String: String] = [:]
      for output in input["outputs"]?.arrayValue ?? [] {
        for (component, buffer) in output.objectValue ?? [:] {
          if let name = buffer.stringValue { outputs[component] = name }
        }
      }
      let sensor: Sensor
      switch source {
      case "accelerometer": sensor = .accelerometer
      case "gyroscope": sensor = .gyroscope
      case "magnetic_field": sensor = .magnetometer
      case "pressure": sensor = .pressure
      case "linear_acceleration":
        sawLinearAcceleration = true
        continue
      default: continue
      }
      guard let time = outputs["t"] else { continue }
      if sensor == .pressure {
        guard
          let value = outputs["x"]
            ?? outputs.first(where: { $0.key != "t" && $0.key != "accuracy" })?.value
        else { continue }
        groups.append(PhyphoxBufferGroup(sensor: sensor, time: time, components: [value]))
      } else {
        guard let x = outputs["x"], let y = outputs["y"], let z = outputs["z"] else { continue }
        groups.append(PhyphoxBufferGroup(sensor: sensor, time: time, components: [x, y, z]))
      }
    }
    if sawLinearAcceleration && !groups.contains(where: { $0.sensor == .accelerometer }) {
      notes.append(
        "the phyphox experiment measures acceleration without g (not what an accelerometer reads); "
          + "use \"Acceleration with g\" for accelerometer samples")
    }
    // The client offers every sensor until `/config` is read, so updates started before then for
    // a sensor the experiment lacks would otherwise never come, with no word why. The note is
    // what tells subscribers (and CMMotionManager, which then ends those updates). The built-in
    // "Acceleration with g" experiment, the one most people open, has no gyroscope; a magnetometer
    // or pressure experiment has neither. An experiment with no input read at all is the
    // client's to report.
    let hasAccelerometer = groups.contains { $0.sensor == .accelerometer }
    let hasGyroscope = groups.contains { $0.sensor == .gyroscope }
    switch (hasAccelerometer, hasGyroscope) {
    case (true, false):
      notes.append(
        "the phyphox experiment has no gyroscope input, so there is no device motion (attitude, "
          + "gravity, user acceleration); for it, use a custom experiment with the accelerometer "
          + "and the gyroscope")
    case (false, true):
      notes.append(
        "the phyphox experiment has no accelerometer input, so there are no accelerometer "
          + "samples and no device motion; for them, use a custom experiment with the "
          + "accelerometer and the gyroscope")
    case (false, false) where !groups.isEmpty:
      notes.append(
        "the phyphox experiment offers neither an accelerometer nor a gyroscope, so there are "
          + "no accelerometer or gyroscope samples and no device motion; open \"Acceleration with "
          + "g\", or a custom experiment with the accelerometer and the gyroscope")
    default:
      break
    }
    return (groups, notes)
  }
}
