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

  /// The longest buffer name read from `/config`, in UTF-8 bytes. phyphox's own names are a few
  /// characters (`acc_time`), and every name read goes into every `/get` (a time name once more
  /// for each value buffer, percent-encoded to up to three times its length), so longer names
  /// from `/config` only made every poll's URL longer.
  package static let maximumNameLength = 64

  /// Finds the groups in a `/config` answer from the experiment's `inputs` (each input lists its
  /// components as single-entry objects: `{"x":"accX"}`, `{"t":"acc_time"}`, …).
  ///
  /// At most one group per sensor, the first usable input's, is returned: the client polls no
  /// more than the four sensors it reads, however many inputs the experiment lists (a hostile or
  /// odd `/config` listing thousands made `/get` URLs of hundreds of KB, on every poll). An input
  /// naming a buffer longer than ``maximumNameLength`` is not read.
  ///
  /// Returns the groups and notes for people (an experiment that only measures acceleration
  /// *without* g, which is not specific force; an input not read for a name too long; one that
  /// lacks some of the four sensors read, see ``lackingNote(for:)``).
  package static func discover(
    in config: PhoneJSON
  ) -> (groups: [PhyphoxBufferGroup], notes: [String]) {
    var groups: [PhyphoxBufferGroup] = []
    var notes: [String] = []
    var sawLinearAcceleration = false
    var longNamed: [Sensor] = []
    for input in config["inputs"]?.arrayValue ?? [] {
      guard let source = input["source"]?.stringValue else { continue }
      var outputs: [String: String] = [:]
      // The components in the order the experiment lists them (phyphox writes one per object;
      // several in one object are taken by name): a pressure input without an "x" takes its
      // first value output, which a dictionary's order would leave to chance from run to run.
      var listed: [(component: String, buffer: String)] = []
      for output in input["outputs"]?.arrayValue ?? [] {
        let members = (output.objectValue ?? [:]).sorted { $0.key < $1.key }
        for (component, buffer) in members {
          if let name = buffer.stringValue {
            outputs[component] = name
            listed.append((component, name))
          }
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
      guard !groups.contains(where: { $0.sensor == sensor }), let time = outputs["t"] else {
        continue
      }
      let components: [String]
      if sensor == .pressure {
        guard
          let value = outputs["x"]
            ?? listed.first(where: { $0.component != "t" && $0.component != "accuracy" })?.buffer
        else { continue }
        components = [value]
      } else {
        guard let x = outputs["x"], let y = outputs["y"], let z = outputs["z"] else { continue }
        components = [x, y, z]
      }
      guard ([time] + components).allSatisfy({ $0.utf8.count <= maximumNameLength }) else {
        if !longNamed.contains(sensor) { longNamed.append(sensor) }
        continue
      }
      groups.append(PhyphoxBufferGroup(sensor: sensor, time: time, components: components))
    }
    if sawLinearAcceleration && !groups.contains(where: { $0.sensor == .accelerometer }) {
      notes.append(
        "the phyphox experiment measures acceleration without g (not what an accelerometer reads); "
          + "use \"Acceleration with g\" for accelerometer samples")
    }
    // Only the sensors that no other input feeds: an overlong name beside a usable input of the
    // same sensor costs nothing.
    let unread = longNamed.filter { sensor in !groups.contains { $0.sensor == sensor } }
    if !unread.isEmpty {
      let names = unread.map(\.rawValue)
      let list =
        names.count == 1
        ? "\(names[0]) input names a buffer longer than \(maximumNameLength) bytes, and is"
        : names.dropLast().joined(separator: ", ") + " and \(names[names.count - 1]) inputs name "
          + "buffers longer than \(maximumNameLength) bytes, and are"
      notes.append("the phyphox experiment's \(list) not read")
    }
    if let note = lackingNote(for: groups, unread: unread) { notes.append(note) }
    return (groups, notes)
  }

  /// The sensors of the four read that `groups` do not feed, in `Sensor.allCases` order.
  package static func lacking(in groups: [PhyphoxBufferGroup]) -> [Sensor] {
    Sensor.allCases.filter { sensor in !groups.contains { $0.sensor == sensor } }
  }

  /// One note naming every sensor `groups` lack, or `nil` when they lack none (or have no group,
  /// which the client reports in its own words).
  ///
  /// The client offers every sensor until `/config` is read, so updates started before then for
  /// a sensor the experiment lacks would otherwise never come, with no word why: the note is what
  /// tells subscribers (and `CMMotionManager` and `CMAltimeter`, which then end those updates).
  /// Every built-in experiment lacks some: "Acceleration with g", the one most people open, has
  /// no gyroscope, so no device motion; a magnetometer experiment has no accelerometer.
  ///
  /// `unread` are the sensors whose input the experiment has but discovery did not read (a
  /// buffer name too long): the note then says "no readable" input, since the experiment does
  /// list one, and the note beside it says why it is not read.
  package static func lackingNote(
    for groups: [PhyphoxBufferGroup], unread: [Sensor] = []
  ) -> String? {
    let lacking = lacking(in: groups)
    guard !groups.isEmpty, !lacking.isEmpty else { return nil }
    let names = lacking.map(\.rawValue)
    let list =
      names.count == 1
      ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    let readable = lacking.contains(where: unread.contains) ? "readable " : ""
    var note =
      "the phyphox experiment has no \(readable)\(list) input, so there are no \(list) samples"
    if lacking.contains(.pressure) { note += " (no altitude)" }
    if lacking.contains(.accelerometer) {
      note +=
        " and no device motion; open \"Acceleration with g\" for the accelerometer, or a custom "
        + "experiment with the sensors you need"
    } else if lacking.contains(.gyroscope) {
      note +=
        " and no device motion (attitude, gravity, user acceleration); for it, use a custom "
        + "experiment with the accelerometer and the gyroscope"
    }
    return note
  }
}
