// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// One message from the SensorServer Android app: one `SensorEvent` as JSON.
///
/// `{"type":"android.sensor.accelerometer","accuracy":2,"timestamp":3925657519043709,
/// "values":[0.31,-0.97,10.04]}`; `type` is present on the multi-sensor endpoint
/// (`/sensors/connect`). Values are Android's raw `SensorEvent.values`: m/s² with gravity included
/// (Android's accelerometer is already specific force), rad/s, µT, hPa. `timestamp` is
/// `SensorEvent.timestamp`: nanoseconds since the phone booted, not epoch time.
package struct SensorServerReading: Sendable, Equatable {
  /// The Android sensor type string.
  package var type: String
  /// Nanoseconds on the phone's boot clock.
  package var timestamp: Int64
  /// The raw values.
  package var values: [Double]

  /// Parses one text message; `defaultType` is used when the message has no `type` field.
  ///
  /// - Throws: ``SourceFailure`` (`.malformedData`) describing what is missing.
  package init(text: String, defaultType: String? = nil) throws {
    let preview = printableExcerpt(text, maximumCharacters: 80)
    guard let document = try? PhoneJSON.parse(Array(text.utf8)),
      case .object(let members) = document
    else {
      throw SourceFailure(
        .malformedData, "SensorServer sent a message that is not a JSON object: \(preview)")
    }
    guard let type = members["type"]?.stringValue ?? defaultType else {
      throw SourceFailure(.malformedData, "SensorServer message has no \"type\": \(preview)")
    }
    guard let timestamp = members["timestamp"]?.int64Value else {
      throw SourceFailure(
        .malformedData, "SensorServer message has no integer \"timestamp\": \(preview)")
    }
    guard let array = members["values"]?.arrayValue else {
      throw SourceFailure(
        .malformedData, "SensorServer message has no \"values\" array: \(preview)")
    }
    // Android never sends non-finite values; a `null` would be a broken message.
    let values = array.compactMap(\.doubleValue)
    guard values.count == array.count else {
      throw SourceFailure(.malformedData, "SensorServer message has non-numeric values: \(preview)")
    }
    self.type = type
    self.timestamp = timestamp
    self.values = values
  }

  /// The sample this reading makes, or `nil` for sensor types that are not motion sensors.
  ///
  /// - Throws: ``SourceFailure`` when a motion sensor has too few values.
  package func sample() throws -> MotionSample? {
    let seconds = phoneStreamSeconds(nanoseconds: timestamp)
    let needed = Self.valueCount(for: type)
    guard let needed else { return nil }
    guard values.count >= needed else {
      throw SourceFailure(
        .malformedData,
        "SensorServer \(printableExcerpt(type, maximumCharacters: 40)) message has \(values.count) values, expected \(needed)"
      )
    }
    switch type {
    case "android.sensor.accelerometer", "android.sensor.accelerometer_uncalibrated":
      return MotionSample(timestamp: seconds, accelerometer: SIMD3(values[0], values[1], values[2]))
    case "android.sensor.gyroscope", "android.sensor.gyroscope_uncalibrated":
      return MotionSample(timestamp: seconds, gyroscope: SIMD3(values[0], values[1], values[2]))
    case "android.sensor.magnetic_field", "android.sensor.magnetic_field_uncalibrated":
      return MotionSample(timestamp: seconds, magnetometer: SIMD3(values[0], values[1], values[2]))
    case "android.sensor.pressure":
      return MotionSample(timestamp: seconds, pressure: values[0] / 10)  // hPa → kPa
    default:
      return nil
    }
  }

  /// How many values a motion sensor type needs; `nil` for types that are not turned into samples.
  package static func valueCount(for type: String) -> Int? {
    switch type {
    case "android.sensor.accelerometer", "android.sensor.accelerometer_uncalibrated",
      "android.sensor.gyroscope", "android.sensor.gyroscope_uncalibrated",
      "android.sensor.magnetic_field", "android.sensor.magnetic_field_uncalibrated":
      return 3
    case "android.sensor.pressure":
      return 1
    default:
      return nil
    }
  }

  /// The sensor a type feeds.
  package static func sensor(for type: String) -> SensorSet {
    switch type {
    case "android.sensor.accelerometer", "android.sensor.accelerometer_uncalibrated":
      return .accelerometer
    case "android.sensor.gyroscope", "android.sensor.gyroscope_uncalibrated": return .gyroscope
    case "android.sensor.magnetic_field", "android.sensor.magnetic_field_uncalibrated":
      return .magnetometer
    case "android.sensor.pressure": return .barometer
    default: return []
    }
  }

  /// The full Android type for a short name (`gyroscope` → `android.sensor.gyroscope`).
  package static func fullType(_ name: String) -> String {
    name.contains(".") ? name : "android.sensor." + name
  }
}
