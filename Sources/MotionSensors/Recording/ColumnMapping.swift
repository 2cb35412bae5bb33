// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath

/// Tells ``RecordingReader`` how to read any CSV: which column holds which quantity, in which units.
///
/// Written as a string (for `--columns` on the command line):
///
/// ```text
/// t=time,ax=accX,ay=accY,az=accZ,gx=gyrX,gy=gyrY,gz=gyrZ;units=g,deg/s,ms
/// ```
///
/// The part before the first `;` assigns columns: `t` (required), `ax ay az` (accelerometer),
/// `gx gy gz` (gyroscope), `mx my mz` (magnetometer), `p` (pressure), `temp` (temperature). A column
/// is named by its header text (case-insensitive) or, with `header=none`, by its 1-based position.
/// After it come `;`-separated options:
///
/// - `units=` a comma-separated list; each unit says which quantity it is for: time `s` (default),
///   `ms`, `us`, `ns` (integer times are parsed exactly); acceleration `m/s^2` (default, specific
///   force: +9.81 up at rest), `g` (the same sign, in g) or `-g` (g with Apple's Core Motion sign, as
///   iOS logs it: converted with `f = −a · 9.80665`); angular rate `rad/s` (default) or `deg/s`;
///   magnetic field `uT` (default), `nT`, `mT`, `T`, `gauss`; pressure `kPa` (default), `hPa`, `mbar`, `Pa`.
///   `acc=`, `gyro=`, `mag=`, `pressure=` and `time=` set one quantity's unit explicitly.
/// - `sep=` `comma` (default), `semicolon`, `tab` or `pipe`; `decimal=comma` for decimal commas.
/// - `header=none` when the file has no header row; `skip=N` to skip N lines before the header
///   (or before the data, without a header).
public struct ColumnMapping: Sendable, Equatable {
  /// The time column.
  public var time: String
  /// Accelerometer columns x, y, z.
  public var accelerometer: [String]?
  /// Gyroscope columns x, y, z.
  public var gyroscope: [String]?
  /// Magnetometer columns x, y, z.
  public var magnetometer: [String]?
  /// The pressure column.
  public var pressure: String?
  /// The temperature column (°C).
  public var temperature: String?
  /// Seconds per time unit (1 for seconds, 1e-3 for milliseconds…).
  public var secondsPerTimeUnit: Double = 1
  /// Whether times are integer counts (ms, µs, ns), parsed exactly.
  public var timeIsInteger = false
  /// Factor from the file's acceleration to specific force in m/s² (−9.80665 for Apple's g).
  public var accelerationScale: Double = 1
  /// Factor from the file's angular rate to rad/s.
  public var angularRateScale: Double = 1
  /// Factor from the file's magnetic field to µT.
  public var magneticFieldScale: Double = 1
  /// Factor from the file's pressure to kPa.
  public var pressureScale: Double = 1
  /// The cell separator.
  public var separator: Character = ","
  /// Whether numbers use a decimal comma.
  public var decimalComma = false
  /// Whether the file has a header row.
  public var hasHeader = true
  /// Lines to skip at the start of the file.
  public var skipLines = 0

  /// Parses the mapping syntax described on the type.
  ///
  /// - Throws: ``RecordingError`` `.malformedHeader` (file `"column mapping"`) naming the bad part.
  public init(parsing text: String) throws {
    func fail(_ message: String) -> RecordingError {
      RecordingError(.malformedHeader, file: "column mapping", "\(message) in \"\(text)\"")
    }
    let sections = text.split(separator: ";", omittingEmptySubsequences: true).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard let assignments = sections.first else { throw fail("empty mapping") }
    var columns: [String: String] = [:]
    for item in assignments.split(separator: ",") {
      let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
      guard pair.count == 2, !pair[1].isEmpty else { throw fail("expected key=column, found \"\(item)\"") }
      let key = pair[0].lowercased()
      guard ["t", "ax", "ay", "az", "gx", "gy", "gz", "mx", "my", "mz", "p", "temp"].contains(key) else {
        throw fail("unknown key \"\(pair[0])\" (use t, ax..az, gx..gz, mx..mz, p, temp)")
      }
      columns[key] = pair[1]
    }
    guard let time = columns["t"] else { throw fail("the time column t= is required") }
    self.time = time
    func triple(_ prefix: String) throws -> [String]? {
      let found = ["x", "y", "z"].map { columns[prefix + $0] }
      if found.allSatisfy({ $0 == nil }) { return nil }
      guard found.allSatisfy({ $0 != nil }) else {
        throw fail("\(prefix)x, \(prefix)y and \(prefix)z go together")
      }
      return found.map { $0! }
    }
    accelerometer = try triple("a")
    gyroscope = try triple("g")
    magnetometer = try triple("m")
    pressure = columns["p"]
    temperature = columns["temp"]

    func setTime(_ unit: String) throws {
      guard let scale = RecordingUnits.time(unit) else { throw fail("unknown time unit \"\(unit)\"") }
      secondsPerTimeUnit = scale
      timeIsInteger = scale < 1
    }
    func setAcceleration(_ unit: String) throws {
      if unit.hasPrefix("-") {
        guard let scale = RecordingUnits.acceleration(String(unit.dropFirst())) else {
          throw fail("unknown acceleration unit \"\(unit)\"")
        }
        accelerationScale = -scale
      } else {
        guard let scale = RecordingUnits.acceleration(unit) else {
          throw fail("unknown acceleration unit \"\(unit)\"")
        }
        accelerationScale = scale
      }
    }
    for option in sections.dropFirst() {
      let pair = option.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
      guard pair.count == 2 else { throw fail("expected option=value, found \"\(option)\"") }
      let value = pair[1]
      switch pair[0].lowercased() {
      case "units":
        for unit in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
          if unit.hasPrefix("-") || RecordingUnits.acceleration(unit) != nil && unit.lowercased() != "mg" {
            try setAcceleration(unit)
          } else if let scale = RecordingUnits.angularRate(unit) {
            angularRateScale = scale
          } else if let scale = RecordingUnits.pressure(unit) {
            pressureScale = scale
          } else if RecordingUnits.time(unit) != nil {
            try setTime(unit)
          } else if let scale = RecordingUnits.magneticField(unit) {
            magneticFieldScale = scale
          } else {
            throw fail("unknown unit \"\(unit)\"")
          }
        }
      case "acc", "accelerometer": try setAcceleration(value)
      case "gyro", "gyroscope":
        guard let scale = RecordingUnits.angularRate(value) else {
          throw fail("unknown angular-rate unit \"\(value)\"")
        }
        angularRateScale = scale
      case "mag", "magnetometer":
        guard let scale = RecordingUnits.magneticField(value) else {
          throw fail("unknown magnetic-field unit \"\(value)\"")
        }
        magneticFieldScale = scale
      case "pressure":
        guard let scale = RecordingUnits.pressure(value) else {
          throw fail("unknown pressure unit \"\(value)\"")
        }
        pressureScale = scale
      case "time": try setTime(value)
      case "sep", "separator":
        switch value.lowercased() {
        case "comma", ",": separator = ","
        case "semicolon": separator = ";"
        case "tab", "\\t": separator = "\t"
        case "pipe", "|": separator = "|"
        default: throw fail("unknown separator \"\(value)\" (comma, semicolon, tab, pipe)")
        }
      case "decimal":
        guard ["comma", "point", "."].contains(value.lowercased()) else {
          throw fail("decimal= takes comma or point")
        }
        decimalComma = value.lowercased() == "comma"
      case "header":
        guard ["none", "yes", "true", "no", "false"].contains(value.lowercased()) else {
          throw fail("header= takes none")
        }
        hasHeader = !["none", "no", "false"].contains(value.lowercased())
      case "skip":
        guard let n = Int(value), n >= 0 else { throw fail("skip= takes a line count") }
        skipLines = n
      default:
        throw fail("unknown option \"\(pair[0])\"")
      }
    }
  }

  func open(_ url: URL, options: RecordingReader.Options) throws -> CSVTableStream {
    let bytes = try CSVBytes(contentsOf: url)
    var cursor = CSVCursor(bytes, separator: separator.asciiValue ?? UInt8(ascii: ","))
    for _ in 0..<skipLines { _ = cursor.nextLine() }
    var names: [String]
    var columnCount: Int
    if hasHeader {
      names = try CSVTableStream.readHeader(&cursor)
      columnCount = names.count
    } else {
      var probe = cursor
      var fields: [CSVField] = []
      guard probe.nextRow(into: &fields) else {
        throw RecordingError(.malformedRow, file: bytes.fileName, line: cursor.lineNumber + 1, "no data rows")
      }
      columnCount = fields.count
      names = (1...columnCount).map { "#\($0)" }
    }
    let index = ColumnIndex(names)
    func column(_ name: String) throws -> Int {
      if hasHeader, let i = index(name) { return i }
      if let position = Int(name), position >= 1, position <= columnCount { return position - 1 }
      throw RecordingError(
        .malformedHeader, file: bytes.fileName, line: hasHeader ? cursor.lineNumber : nil,
        "the mapping names column \"\(name)\", which the file does not have"
          + (hasHeader ? " (columns: \(names.joined(separator: ", ")))" : ""))
    }
    func vector(_ names: [String]?, _ scale: Double) throws -> ColumnLayout.Vector? {
      guard let names else { return nil }
      return .init(
        columns: SIMD3(try column(names[0]), try column(names[1]), try column(names[2])),
        scale: SIMD3(repeating: scale))
    }
    var layout = ColumnLayout(time: try column(time), columnNames: names)
    // Integer time only for a unit whose count per second fits an Int64 (the unit is a public property).
    let unitsPerSecond = (1 / secondsPerTimeUnit).rounded()
    if timeIsInteger, unitsPerSecond >= 1, unitsPerSecond < 1e18 {
      layout.timeEncoding = .integer(unitsPerSecond: Int64(unitsPerSecond))
    } else {
      layout.timeEncoding = .decimal(scale: secondsPerTimeUnit)
    }
    layout.accelerometer = try vector(accelerometer, accelerationScale)
    layout.gyroscope = try vector(gyroscope, angularRateScale)
    layout.magnetometer = try vector(magnetometer, magneticFieldScale)
    if let pressure { layout.pressure = .init(column: try column(pressure), scale: pressureScale) }
    if let temperature { layout.temperature = .init(column: try column(temperature)) }
    let descriptor = StreamDescriptor(
      name: url.lastPathComponent, sensors: layout.sensors, nominalSampleRate: nil,
      metadata: ["format": RecordingFormat.columns.rawValue])
    return CSVTableStream(
      cursor: cursor, layout: layout, headerColumnCount: columnCount, descriptor: descriptor,
      options: options,
      decimalComma: decimalComma)
  }
}
