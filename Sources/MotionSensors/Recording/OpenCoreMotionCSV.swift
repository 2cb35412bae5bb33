// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath

/// OpenCoreMotion's own recording format: a CSV file with a self-describing header.
///
/// ```text
/// # OpenCoreMotion CSV
/// # version: 1
/// # source: simulator:tour
/// # sensors: accelerometer,gyroscope,magnetometer
/// # nominal-sample-rate-hz: 100
/// # clock: seconds on the source's clock
/// # earth-frame: NWU (x north, y west, z up)
/// # units: t=s acc=m/s^2 (specific force) gyr=rad/s mag=uT ...
/// # empty-cell: no value at this instant
/// # meta.device: Pixel 7
/// t,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z,mag_x,mag_y,mag_z,true_qw,...
/// 0.0,0.1,0.2,9.81,...
/// ```
///
/// Units are always OpenCoreMotion's (``MotionSample``): specific force in m/s², rad/s, µT, kPa,
/// °C; timestamps in seconds on the source's clock. An empty cell means the sensor did not tick at
/// that instant. Numbers are written in Swift's shortest round-trip form, so a write followed by a
/// read gives bit-identical samples. Ground-truth columns (prefix `true_`) are optional; the
/// attitude is `earthFromSensor` in NWU, scalar first.
///
/// Compatibility rules: header lines are `# key: value` (values escape `\`, newline and carriage
/// return with a backslash; free metadata uses `meta.` keys); lines starting with `#` that are not
/// `key: value` are comments. Columns are found by name, in any order; unknown columns are ignored,
/// so later versions may add columns. A file whose `version` is newer than ``version`` is rejected.
public enum OpenCoreMotionCSV {
  /// Whether a header may give `rate` (Hz) as the nominal rate: positive and at most 1 MHz.
  /// Beyond that is no recording's rate, and the rate becomes a player's rate range (which
  /// `motionctl status` once turned into an `Int` and trapped on). The writer leaves out a rate
  /// this refuses (one estimated from timestamps microseconds apart) rather than write a file its
  /// reader refuses.
  static func isNominalRate(_ rate: Double) -> Bool { rate > 0 && rate <= 1e6 }

  /// The first line of every file in this format.
  public static let magic = "# OpenCoreMotion CSV"
  /// The format version this library writes and the newest it reads.
  public static let version = 1

  /// The most bytes of `#` header lines read before the column header row (1 MiB; a written
  /// header is under 1 KiB). Their values are kept, so without a bound a file of comment lines grew
  /// memory about six times its size.
  static let maximumHeaderSize = 1 << 20

  /// Column names, in the order they are written.
  enum Column {
    static let time = "t"
    static let accelerometer = ["acc_x", "acc_y", "acc_z"]
    static let gyroscope = ["gyr_x", "gyr_y", "gyr_z"]
    static let magnetometer = ["mag_x", "mag_y", "mag_z"]
    static let pressure = "pressure"
    static let temperature = "temperature"
    static let attitude = ["true_qw", "true_qx", "true_qy", "true_qz"]
    static let angularVelocity = ["true_gyr_x", "true_gyr_y", "true_gyr_z"]
    static let gyroscopeBias = ["true_gyr_bias_x", "true_gyr_bias_y", "true_gyr_bias_z"]
    static let gravity = ["true_grav_x", "true_grav_y", "true_grav_z"]
    static let linearAcceleration = ["true_lin_acc_x", "true_lin_acc_y", "true_lin_acc_z"]
    static let position = ["true_pos_x", "true_pos_y", "true_pos_z"]
    static let movement = "true_movement"
  }

  /// The `# units:` line: every column's unit, for people reading the file.
  static let unitsLine =
    "t=s acc=m/s^2 (specific force, +9.81 up at rest) gyr=rad/s mag=uT pressure=kPa temperature=degC "
    + "true_q=earthFromSensor quaternion (w,x,y,z; NWU) true_gyr=rad/s true_gyr_bias=rad/s "
    + "true_grav=m/s^2 (gravity, pointing down) true_lin_acc=m/s^2 true_pos=m (NWU) true_movement=0/1"

  /// Escapes a header value so that it stays on one line.
  static func escape(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
      .replacingOccurrences(of: "\r", with: "\\r")
  }

  /// The inverse of ``escape(_:)``.
  static func unescape(_ value: String) -> String {
    var result = ""
    var iterator = value.makeIterator()
    while let c = iterator.next() {
      guard c == "\\", let next = iterator.next() else {
        result.append(c)
        continue
      }
      switch next {
      case "n": result.append("\n")
      case "r": result.append("\r")
      default: result.append(next)
      }
    }
    return result
  }

  static func open(
    _ bytes: CSVBytes, url: URL, options: RecordingReader.Options
  ) throws -> CSVTableStream {
    var cursor = CSVCursor(bytes)
    let file = bytes.fileName
    guard let first = try cursor.nextLine(), first.hasPrefix(magic) else {
      throw RecordingError(
        .malformedHeader, file: file, line: 1, "the first line must be \"\(magic)\"")
    }
    var header: [String: String] = [:]
    var metadata: [String: String] = [:]
    while let line = try cursor.peekLine(), line.hasPrefix("#") {
      _ = try cursor.nextLine()
      // The header's values are kept (in the descriptor's metadata), so its size is bounded.
      guard cursor.offset <= maximumHeaderSize else {
        throw RecordingError(
          .malformedHeader, file: file, line: cursor.lineNumber,
          "the # header is longer than \(maximumHeaderSize >> 20) MiB")
      }
      let body = line.dropFirst().drop { $0 == " " }
      guard let colon = body.firstIndex(of: ":") else { continue }  // a free comment
      let key = body[..<colon].trimmingCharacters(in: .whitespaces)
      let value = unescape(body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces))
      if key.hasPrefix("meta.") {
        metadata[String(key.dropFirst(5))] = value
      } else {
        header[key] = value
      }
    }
    if let text = header["version"] {
      guard let v = Int(text) else {
        throw RecordingError(
          .malformedHeader, file: file, line: nil, "the version \"\(text)\" is not a number")
      }
      guard v <= version else {
        throw RecordingError(
          .malformedHeader, file: file,
          "format version \(v) is newer than this reader's (\(version)); update OpenCoreMotion")
      }
    }
    var fields: [CSVField] = []
    guard try cursor.nextRow(into: &fields) else {
      throw RecordingError(
        .malformedHeader, file: file, line: cursor.lineNumber + 1,
        "the column header row is missing")
    }
    let names = fields.map(cursor.bytes.string)
    let index = ColumnIndex(names)
    guard let time = index(Column.time) else {
      throw RecordingError(
        .malformedHeader, file: file, line: cursor.lineNumber,
        "the column header has no \"t\" column")
    }
    var layout = ColumnLayout(time: time, columnNames: names)
    func vector(_ columns: [String]) throws -> ColumnLayout.Vector? {
      let found = columns.map { index($0) }
      if found.allSatisfy({ $0 == nil }) { return nil }
      guard let x = found[0], let y = found[1], let z = found[2] else {
        let missing = zip(columns, found).filter { $0.1 == nil }.map(\.0)
        throw RecordingError(
          .malformedHeader, file: file, line: cursor.lineNumber,
          "incomplete vector columns: missing \(missing.joined(separator: ", "))")
      }
      return .init(columns: SIMD3(x, y, z))
    }
    layout.accelerometer = try vector(Column.accelerometer)
    layout.gyroscope = try vector(Column.gyroscope)
    layout.magnetometer = try vector(Column.magnetometer)
    layout.pressure = index(Column.pressure).map { .init(column: $0) }
    layout.temperature = index(Column.temperature).map { .init(column: $0) }
    let q = Column.attitude.map { index($0) }
    if q.contains(where: { $0 != nil }) {
      guard let w = q[0], let x = q[1], let y = q[2], let z = q[3] else {
        throw RecordingError(
          .malformedHeader, file: file, line: cursor.lineNumber,
          "incomplete quaternion columns true_qw..true_qz")
      }
      layout.attitude = .init(w: w, x: x, y: y, z: z)
    }
    layout.angularVelocity = try vector(Column.angularVelocity)
    layout.gyroscopeBias = try vector(Column.gyroscopeBias)
    layout.gravity = try vector(Column.gravity)
    layout.linearAcceleration = try vector(Column.linearAcceleration)
    layout.position = try vector(Column.position)
    layout.movement = index(Column.movement)

    var rate: Double?
    if let text = header["nominal-sample-rate-hz"] {
      guard let value = Double(text), Self.isNominalRate(value) else {
        throw RecordingError(
          .malformedHeader, file: file,
          "nominal-sample-rate-hz \"\(text)\" is not a positive number up to 1000000")
      }
      rate = value
    }
    metadata["format"] = RecordingFormat.opencoremotion.rawValue
    if let source = header["source"] { metadata["source"] = source }
    if let clock = header["clock"] { metadata["clock"] = clock }
    let descriptor = StreamDescriptor(
      name: url.lastPathComponent, sensors: layout.sensors, nominalSampleRate: rate,
      hasGroundTruth: layout.hasGroundTruth, metadata: metadata)
    return CSVTableStream(
      cursor: cursor, layout: layout, headerColumnCount: names.count, descriptor: descriptor,
      options: options, skipsCommentLines: true)
  }
}
