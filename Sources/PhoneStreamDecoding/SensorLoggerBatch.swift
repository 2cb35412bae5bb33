// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// One HTTP push message from the Sensor Logger app: a batch of readings from several sensors.
///
/// The body is `{"messageId": n, "sessionId": …, "deviceId": …, "payload": [reading, …]}`, each
/// reading `{"name": "accelerometer", "time": <UTC epoch ns>, "values": {"x": …, "y": …, "z": …}}`
/// (Android adds `"accuracy"` to some). `messageId` counts up within a recording, but messages may
/// arrive out of order.
package struct SensorLoggerBatch: Sendable, Equatable {
  /// One reading of one sensor.
  package struct Reading: Sendable, Equatable {
    /// The stream name, lower-cased (`accelerometer`, `gyroscopeuncalibrated`, …).
    package var name: String
    /// UTC epoch nanoseconds.
    package var time: Int64
    /// The numeric fields of `values` that this library reads (see
    /// ``SensorLoggerBatch/valueKeys(of:)``); other and non-numeric fields are left out.
    package var values: [String: Double]
    /// Whether the reading carried an `accuracy` field (only Android sends it).
    package var hasAccuracy: Bool

    /// The `x`, `y`, `z` fields as a vector, if all three are present.
    package var vector: SIMD3<Double>? {
      guard let x = values["x"], let y = values["y"], let z = values["z"] else { return nil }
      return SIMD3(x, y, z)
    }
  }

  /// The message counter, if present.
  package var messageID: Int64?
  /// The recording's identifier, if present (a new one means a new recording).
  package var sessionID: String?
  /// The sending phone's identifier, if present (the app's, stable across recordings).
  package var deviceID: String?
  /// The readings in the order they were sent.
  package var readings: [Reading]

  /// The stream names this library turns into samples; other readings are skipped unread.
  package static let motionStreamNames: Set<String> = [
    "accelerometer", "accelerometeruncalibrated", "totalacceleration", "gravity", "gyroscope",
    "gyroscopeuncalibrated", "magnetometer", "magnetometeruncalibrated", "barometer", "orientation",
  ]

  /// The fields of a reading's `values` that are kept for the stream `name`: `pressure` for the
  /// barometer, the quaternion `qx`…`qw` for the orientation (platform detection), `x`, `y`, `z`
  /// for the rest.
  ///
  /// Only these are kept because a decoded message may wait in the reorder window, and the
  /// budget of held readings (``SensorLoggerMessageSequencer/defaultMaximumHeldReadings``)
  /// assumes a reading of a few fields: a reading whose `values` held some 90 000 numeric keys
  /// used to keep them all, megabytes where about 220 bytes were counted.
  package static func valueKeys(of name: String) -> [String] {
    switch name {
    case "barometer": return ["pressure"]
    case "orientation": return ["qx", "qy", "qz", "qw"]
    default: return ["x", "y", "z"]
    }
  }

  /// The most JSON objects and arrays one push body may hold. A reading is two (itself and its
  /// values), so a full 1 MiB body of readings stays well below; a body of tiny containers built
  /// to make parsing slow is refused after one cheap pass over its bytes instead of parsed.
  package static let maximumContainers = 40_000

  /// Parses a push body.
  ///
  /// - Throws: ``SourceFailure`` (`.malformedData`) naming what is wrong: not JSON, no `payload`
  ///   array, or a motion reading without a usable `time` or values.
  package init(body: [UInt8]) throws {
    // Counts brackets inside strings too: an overestimate, which only errs on the safe side.
    var containers = 0
    for byte in body where byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
      containers += 1
    }
    guard containers <= Self.maximumContainers else {
      throw SourceFailure(
        .malformedData,
        "Sensor Logger push body holds more than \(Self.maximumContainers) JSON objects and arrays")
    }
    let document: PhoneJSON
    do {
      document = try PhoneJSON.parse(body)
    } catch {
      let preview = printableExcerpt(
        String(decoding: body.prefix(60), as: UTF8.self), maximumCharacters: 60)
      throw SourceFailure(
        .malformedData, "Sensor Logger push body is not JSON (starts \"\(preview)\")")
    }
    guard case .object(let members) = document else {
      throw SourceFailure(.malformedData, "Sensor Logger push body is not a JSON object")
    }
    guard let payload = members["payload"]?.arrayValue else {
      if members["compressedData"] != nil {
        throw SourceFailure(
          .malformedData,
          "Sensor Logger push body uses \"compressedData\", which is not supported; "
            + "turn off compression in the app")
      }
      throw SourceFailure(.malformedData, "Sensor Logger push body has no \"payload\" array")
    }
    messageID = members["messageId"]?.int64Value
    sessionID = members["sessionId"]?.stringValue
    deviceID = members["deviceId"]?.stringValue
    readings = []
    readings.reserveCapacity(payload.count)
    for (index, entry) in payload.enumerated() {
      guard let name = entry["name"]?.stringValue?.lowercased(),
        Self.motionStreamNames.contains(name)
      else { continue }  // "test", location, camera, … carry nothing for us.
      guard let time = entry["time"]?.int64Value else {
        throw SourceFailure(
          .malformedData,
          "Sensor Logger reading \(index) (\(printableExcerpt(name, maximumCharacters: 40))) has no integer \"time\" in epoch ns"
        )
      }
      guard let valueMembers = entry["values"]?.objectValue else {
        throw SourceFailure(
          .malformedData,
          "Sensor Logger reading \(index) (\(printableExcerpt(name, maximumCharacters: 40))) has no \"values\" object"
        )
      }
      var values: [String: Double] = [:]
      for key in Self.valueKeys(of: name) {
        if let number = valueMembers[key]?.doubleValue { values[key] = number }
      }
      let reading = Reading(
        name: name, time: time, values: values, hasAccuracy: entry["accuracy"] != nil)
      switch name {
      case "barometer":
        guard values["pressure"] != nil else {
          throw SourceFailure(
            .malformedData, "Sensor Logger reading \(index) (barometer) has no \"pressure\"")
        }
      case "orientation":
        break
      default:
        guard reading.vector != nil else {
          throw SourceFailure(
            .malformedData,
            "Sensor Logger reading \(index) (\(printableExcerpt(name, maximumCharacters: 40))) lacks numeric x, y and z values"
          )
        }
      }
      readings.append(reading)
    }
  }
}
