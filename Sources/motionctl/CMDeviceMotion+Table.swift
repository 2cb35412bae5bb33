// SPDX-License-Identifier: Apache-2.0

import Foundation
import OpenCoreMotion

extension CMDeviceMotion {
  /// The columns of a device-motion table, in order (`motionctl replay` writes exactly these; the
  /// JSON Lines output uses them as keys). Values are in Core Motion units: seconds, the attitude
  /// quaternion, radians, g with Apple's sign, rad/s, and degrees for the heading and its
  /// accuracy (−1 for either where invalid).
  static let tableColumns = [
    "timestamp", "quat_w", "quat_x", "quat_y", "quat_z", "roll", "pitch", "yaw",
    "gravity_x", "gravity_y", "gravity_z", "user_accel_x", "user_accel_y", "user_accel_z",
    "rotation_rate_x", "rotation_rate_y", "rotation_rate_z", "heading",
    "heading_accuracy",
  ]

  /// This update's values in the order of ``tableColumns``.
  var tableValues: [Double] {
    let q = attitude.quaternion
    return [
      timestamp, q.w, q.x, q.y, q.z, attitude.roll, attitude.pitch, attitude.yaw,
      gravity.x, gravity.y, gravity.z, userAcceleration.x, userAcceleration.y, userAcceleration.z,
      rotationRate.x, rotationRate.y, rotationRate.z, heading, headingAccuracy,
    ]
  }

  /// One CSV row (no line break) in the order of ``tableColumns``; numbers use Swift's shortest
  /// representation that reads back to the same value.
  var csvRow: String {
    tableValues.map { "\($0)" }.joined(separator: ",")
  }

  /// One JSON object (no line break) with the ``tableColumns`` as keys, made by `encoder`; a
  /// non-finite value is `null` (JSON has no NaN or infinity).
  func jsonLine(using encoder: JSONEncoder) throws -> String {
    let row = DeviceMotionRow(columns: Self.tableColumns, values: tableValues)
    return String(decoding: try encoder.encode(row), as: UTF8.self)
  }
}

/// A device-motion update as a JSON object: column name → number (`null` when not finite).
struct DeviceMotionRow: Encodable {
  var columns: [String]
  var values: [Double]

  private struct ColumnKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: ColumnKey.self)
    for (column, value) in zip(columns, values) {
      let key = ColumnKey(stringValue: column)
      if value.isFinite {
        try container.encode(value, forKey: key)
      } else {
        try container.encodeNil(forKey: key)
      }
    }
  }
}
