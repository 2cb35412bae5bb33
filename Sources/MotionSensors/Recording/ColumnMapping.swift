// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath

/// Tells ``RecordingReader`` how to read any CSV: which column holds which quantity, in which
/// units.
///
/// Written as a string (for `--columns` on the command line):
///
/// ```text
/// t=time,ax=accX,ay=accY,az=accZ,gx=gyrX,gy=gyrY,gz=gyrZ;units=g,deg/s,ms
/// ```
///
/// The part before the first `;` assigns columns: `t` (required), `ax ay az` (accelerometer), `gx
/// gy gz` (gyroscope), `mx my mz` (magnetometer), `p` (pressure), `temp` (temperature). A column is
/// named by its header text (case-insensitive) or, with `header=none`, by its 1-based position.
/// After it come `;`-separated options:
///
/// - `units=` a comma-separated list; each unit says which quantity it is for: time `s` (default),
///   `ms`, `us`, `ns` (integer times are parsed exactly); acceleration `m/s^2` (default, specific
///   force: +9.81 up at rest), `g` (the same sign, in g), `mg` (milli-g) or `-g`, `-mg` (with
///   Apple's Core Motion sign, as iOS logs it: converted with `f = −a · 9.80665`); angular rate
///   `rad/s` (default) or `deg/s`; magnetic field `uT` (default), `nT`, `mT`, `T`, `gauss`, `mgauss`
///   or `mg` (milligauss); pressure `kPa` (default), `hPa`, `mbar`, `Pa`. `mg` in `units=` is
///   milli-g when the mapping has accelerometer columns and no magnetometer ones, milligauss
///   otherwise, and an error when it has both. `acc=`, `gyro=`, `mag=`, `pressure=` and `time=` set
///   one quantity's unit explicitly.
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
  /// Lines to skip at the start of the file, 0…``maximumSkippedLines`` (opening a file with a value
  /// outside that range throws).
  public var skipLines = 0

  /// The most lines `skip=` accepts: a preamble, not a way to seek into a file.
  public static let maximumSkippedLines = 1_000_000

  /// Parses the mapping syntax described on the type.
  ///
  /// - Throws: ``RecordingError`` `.malformedHeader` (file `"column mapping"`) naming the bad part.
  public init(parsing text: String) throws {
    let sections = text.split(separator: ";", omittingEmptySubsequences: true).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard let assignments = sections.first else { throw Self.error("empty mapping", in: text) }
    let columns = try Self.parseAssignments(assignments, in: text)
    guard let time = columns["t"] else {
      throw Self.error("the time column t= is required", in: text)
    }
    self.time = time
    accelerometer = try Self.triple("a", in: columns, text: text)
    gyroscope = try Self.triple("g", in: columns, text: text)
    magnetometer = try Self.triple("m", in: columns, text: text)
    pressure = columns["p"]
    temperature = columns["temp"]
    for option in sections.dropFirst() {
      try applyOption(option, in: text)
    }
  }

  /// The first column names for a message: a header may have thousands of cells, and the message
  /// only needs to show what the file holds.
  private static func listed(_ names: [String]) -> String {
    let shown = names.prefix(20).joined(separator: ", ")
    return names.count > 20 ? shown + ", … (\(names.count) columns)" : shown
  }

  func open(_ url: URL, options: RecordingReader.Options) throws -> CSVTableStream {
    // The properties are public, so they may hold what the parser never produces.
    guard (0...Self.maximumSkippedLines).contains(skipLines) else {
      throw Self.error(
        "skipLines must be 0…\(Self.maximumSkippedLines), got \(skipLines)", in: "skip=\(skipLines)"
      )
    }
    for columns in [accelerometer, gyroscope, magnetometer] {
      if let columns, columns.count != 3 {
        throw Self.error(
          "a vector needs three columns (x, y, z), got \(columns.count)",
          in: columns.joined(separator: ","))
      }
    }
    let bytes = try CSVBytes(contentsOf: url)
    var cursor = CSVCursor(bytes, separator: separator.asciiValue ?? UInt8(ascii: ","))
    // A file shorter than its preamble ends the skipping (the header read then reports it).
    for _ in 0..<skipLines {
      guard try cursor.nextLine() != nil else { break }
    }
    var names: [String]
    var columnCount: Int
    if hasHeader {
      names = try CSVTableStream.readHeader(&cursor)
      columnCount = names.count
    } else {
      var probe = cursor
      var fields: [CSVField] = []
      guard try probe.nextRow(into: &fields) else {
        throw RecordingError(
          .malformedRow, file: bytes.fileName, line: cursor.lineNumber + 1, "no data rows")
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
          + (hasHeader ? " (columns: \(Self.listed(names)))" : ""))
    }
    func vector(_ names: [String]?, _ scale: Double) throws -> ColumnLayout.Vector? {
      guard let names else { return nil }
      return .init(
        columns: SIMD3(try column(names[0]), try column(names[1]), try column(names[2])),
        scale: SIMD3(repeating: scale))
    }
    var layout = ColumnLayout(time: try column(time), columnNames: names)
    // Integer time only for a unit whose count per second fits an Int64 (the unit is a public
    // property).
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
