// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Reads x-io Technologies CSV logs: an x-IMU3 logged-data folder (or zip) with `Inertial.csv`
/// (`Timestamp (us),Gyroscope X (deg/s),…,Accelerometer X (g),…`) and `Magnetometer.csv`
/// (`Timestamp (us),X (a.u.),…`), or a single CSV in the same style such as the Fusion library's
/// example (`Time (s),Gyroscope X (deg/s),…,Accelerometer X (g),…,Magnetometer X (uT),…`).
///
/// Units come from the column names: deg/s becomes rad/s, g becomes m/s² (x-io accelerometers read
/// +1 g on the up axis at rest, already the specific-force sign). The x-IMU3's magnetometer is in
/// arbitrary units (`a.u.`): it is passed through unscaled and the descriptor's metadata says so.
/// Device timestamps in µs are parsed exactly and converted to seconds.
enum XIMU3Log {
  /// Whether a header line is an x-io inertial header.
  static func matches(headerLine: String) -> Bool {
    let lower = ColumnIndex.normalize(headerLine)
    return lower.contains("gyroscope x (deg/s)") && lower.contains("accelerometer x (g)")
  }

  static func open(_ url: URL, options: RecordingReader.Options) throws -> any RecordingRowStream {
    var notes = ["format": RecordingFormat.ximu3.rawValue]
    if RecordingContainer.isPlainFile(url) {
      let stream = try table(
        try CSVBytes(contentsOf: url), name: url.lastPathComponent, notes: &notes, options: options)
      return stream.withDescriptor(name: url.lastPathComponent, metadata: notes)
    }
    let container = try RecordingContainer(url)
    guard let inertial = container.path(named: "Inertial.csv") else {
      throw RecordingError(.fileNotFound, file: url.path, "no Inertial.csv in this x-IMU3 log")
    }
    var parts: [any RecordingRowStream] = [
      try table(try container.bytes(inertial), name: inertial, notes: &notes, options: options)
    ]
    if let magnetometer = container.path(named: "Magnetometer.csv"),
      try container.size(magnetometer) > 0
    {
      parts.append(
        try table(
          try container.bytes(magnetometer), name: magnetometer, notes: &notes, options: options,
          bareAxesAre: .magnetometer))
    }
    return MergedRecordingStream(parts: parts, name: url.lastPathComponent, metadata: notes)
  }

  /// One x-io CSV table; `bareAxesAre` names the sensor of columns called just `X (unit)`.
  private static func table(
    _ bytes: CSVBytes, name: String, notes: inout [String: String],
    options: RecordingReader.Options,
    bareAxesAre bare: SensorSet? = nil
  ) throws -> CSVTableStream {
    var cursor = CSVCursor(bytes)
    let names = try CSVTableStream.readHeader(&cursor)
    let split = names.map(RecordingUnits.split)
    func column(_ base: String) -> (Int, String?)? {
      split.firstIndex { $0.base == base }.map { ($0, split[$0].unit) }
    }
    func headerError(_ message: String) -> RecordingError {
      RecordingError(.malformedHeader, file: bytes.fileName, line: 1, message)
    }
    var layout: ColumnLayout
    if let (index, unit) = column("timestamp") {
      layout = ColumnLayout(time: index, columnNames: names)
      let perSecond: Int64
      switch unit {
      case "us", "µs": perSecond = 1_000_000
      case "ms": perSecond = 1000
      case "ns": perSecond = 1_000_000_000
      default: throw headerError("unknown timestamp unit \(unit ?? "(none)")")
      }
      layout.timeEncoding = .integer(unitsPerSecond: perSecond)
    } else if let (index, unit) = column("time") {
      layout = ColumnLayout(time: index, columnNames: names)
      guard let scale = RecordingUnits.time(unit ?? "s") else {
        throw headerError("unknown time unit \(unit ?? "")")
      }
      layout.timeEncoding = .decimal(scale: scale)
    } else {
      throw headerError("no \"Timestamp (us)\" or \"Time (s)\" column")
    }
    func vector(_ prefix: String, _ factor: (String) -> Double?) throws -> ColumnLayout.Vector? {
      guard let (x, unit) = column(prefix + "x"), let (y, _) = column(prefix + "y"),
        let (z, _) = column(prefix + "z")
      else {
        return nil
      }
      guard let scale = factor(unit ?? "") else {
        throw headerError("unknown unit \"\(unit ?? "")\" for \(names[x])")
      }
      if unit == "a.u." { notes["magnetometerUnits"] = "arbitrary units (a.u.) as logged, not µT" }
      return .init(columns: SIMD3(x, y, z), scale: SIMD3(repeating: scale))
    }
    layout.gyroscope = try vector("gyroscope ", RecordingUnits.angularRate)
    layout.accelerometer = try vector("accelerometer ", RecordingUnits.acceleration)
    layout.magnetometer = try vector("magnetometer ", RecordingUnits.magneticField)
    if bare == .magnetometer, layout.magnetometer == nil {
      layout.magnetometer = try vector("", RecordingUnits.magneticField)
    }
    guard !layout.sensors.isEmpty else {
      throw headerError("no gyroscope, accelerometer or magnetometer columns")
    }
    return CSVTableStream(
      cursor: cursor, layout: layout, headerColumnCount: names.count,
      descriptor: StreamDescriptor(name: name, sensors: layout.sensors, nominalSampleRate: nil),
      options: options)
  }
}
