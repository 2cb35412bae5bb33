// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The parts of ``ColumnMapping/init(parsing:)``: column assignments, then options, then units.
extension ColumnMapping {
  /// The error for a malformed mapping `text`.
  static func error(_ message: String, in text: String) -> RecordingError {
    RecordingError(.malformedHeader, file: "column mapping", "\(message) in \"\(text)\"")
  }

  // MARK: Columns

  /// The `key=column` pairs before the first `;`, by lower-cased key.
  static func parseAssignments(_ assignments: String, in text: String) throws -> [String: String] {
    var columns: [String: String] = [:]
    for item in assignments.split(separator: ",") {
      let pair = item.split(separator: "=", maxSplits: 1).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard pair.count == 2, !pair[1].isEmpty else {
        throw error("expected key=column, found \"\(item)\"", in: text)
      }
      let key = pair[0].lowercased()
      guard ["t", "ax", "ay", "az", "gx", "gy", "gz", "mx", "my", "mz", "p", "temp"].contains(key)
      else {
        throw error("unknown key \"\(pair[0])\" (use t, ax..az, gx..gz, mx..mz, p, temp)", in: text)
      }
      columns[key] = pair[1]
    }
    return columns
  }

  /// The x, y, z columns of `prefix` (all three or none).
  static func triple(
    _ prefix: String, in columns: [String: String], text: String
  ) throws -> [String]? {
    let found = ["x", "y", "z"].map { columns[prefix + $0] }
    if found.allSatisfy({ $0 == nil }) { return nil }
    guard found.allSatisfy({ $0 != nil }) else {
      throw error("\(prefix)x, \(prefix)y and \(prefix)z go together", in: text)
    }
    return found.map { $0! }
  }

  // MARK: Options

  /// Applies one `option=value` section.
  mutating func applyOption(_ option: String, in text: String) throws {
    let pair = option.split(separator: "=", maxSplits: 1).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard pair.count == 2 else {
      throw Self.error("expected option=value, found \"\(option)\"", in: text)
    }
    let value = pair[1]
    switch pair[0].lowercased() {
    case "units":
      for unit in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
        try applyUnit(unit, in: text)
      }
    case "acc", "accelerometer": try setAccelerationUnit(value, in: text)
    case "gyro", "gyroscope":
      guard let scale = RecordingUnits.angularRate(value) else {
        throw Self.error("unknown angular-rate unit \"\(value)\"", in: text)
      }
      angularRateScale = scale
    case "mag", "magnetometer":
      guard let scale = RecordingUnits.magneticField(value) else {
        throw Self.error("unknown magnetic-field unit \"\(value)\"", in: text)
      }
      magneticFieldScale = scale
    case "pressure":
      guard let scale = RecordingUnits.pressure(value) else {
        throw Self.error("unknown pressure unit \"\(value)\"", in: text)
      }
      pressureScale = scale
    case "time": try setTimeUnit(value, in: text)
    default:
      try applyLayoutOption(pair[0], value, in: text)
    }
  }

  /// The options about the file's layout: separator, decimal mark, header, skipped lines.
  private mutating func applyLayoutOption(_ key: String, _ value: String, in text: String) throws {
    switch key.lowercased() {
    case "sep", "separator":
      switch value.lowercased() {
      case "comma", ",": separator = ","
      case "semicolon": separator = ";"
      case "tab", "\\t": separator = "\t"
      case "pipe", "|": separator = "|"
      default:
        throw Self.error("unknown separator \"\(value)\" (comma, semicolon, tab, pipe)", in: text)
      }
    case "decimal":
      guard ["comma", "point", "."].contains(value.lowercased()) else {
        throw Self.error("decimal= takes comma or point", in: text)
      }
      decimalComma = value.lowercased() == "comma"
    case "header":
      guard ["none", "yes", "true", "no", "false"].contains(value.lowercased()) else {
        throw Self.error("header= takes none", in: text)
      }
      hasHeader = !["none", "no", "false"].contains(value.lowercased())
    case "skip":
      guard let n = Int(value), (0...Self.maximumSkippedLines).contains(n) else {
        throw Self.error("skip= takes a line count (0…\(Self.maximumSkippedLines))", in: text)
      }
      skipLines = n
    default:
      throw Self.error("unknown option \"\(key)\"", in: text)
    }
  }

  // MARK: Units

  /// One entry of `units=`: the unit says which quantity it is for.
  ///
  /// `mg` is milli-g or milligauss: the columns decide (assigned before the options are read).
  private mutating func applyUnit(_ unit: String, in text: String) throws {
    if unit.lowercased() == "mg" {
      switch (accelerometer != nil, magnetometer != nil) {
      case (true, true):
        throw Self.error(
          "unit \"mg\" is ambiguous with both accelerometer and magnetometer columns: write "
            + "acc=mg for milli-g or mag=mg for milligauss", in: text)
      case (true, false):
        try setAccelerationUnit(unit, in: text)
      case (false, _):
        magneticFieldScale = RecordingUnits.magneticField(unit) ?? magneticFieldScale
      }
    } else if unit.hasPrefix("-") || RecordingUnits.acceleration(unit) != nil {
      try setAccelerationUnit(unit, in: text)
    } else if let scale = RecordingUnits.angularRate(unit) {
      angularRateScale = scale
    } else if let scale = RecordingUnits.pressure(unit) {
      pressureScale = scale
    } else if RecordingUnits.time(unit) != nil {
      try setTimeUnit(unit, in: text)
    } else if let scale = RecordingUnits.magneticField(unit) {
      magneticFieldScale = scale
    } else {
      throw Self.error("unknown unit \"\(unit)\"", in: text)
    }
  }

  private mutating func setTimeUnit(_ unit: String, in text: String) throws {
    guard let scale = RecordingUnits.time(unit) else {
      throw Self.error("unknown time unit \"\(unit)\"", in: text)
    }
    secondsPerTimeUnit = scale
    timeIsInteger = scale < 1
  }

  /// `g`, `m/s^2`, …, or with a leading `-` the same unit with Apple's sign.
  private mutating func setAccelerationUnit(_ unit: String, in text: String) throws {
    let isAppleSign = unit.hasPrefix("-")
    guard let scale = RecordingUnits.acceleration(isAppleSign ? String(unit.dropFirst()) : unit)
    else {
      throw Self.error("unknown acceleration unit \"\(unit)\"", in: text)
    }
    accelerationScale = isAppleSign ? -scale : scale
  }
}
