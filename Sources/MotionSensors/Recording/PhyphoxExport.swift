// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Reads phyphox CSV exports (RWTH Aachen; Android and iOS): a zip archive or folder with one CSV
/// per export set (`Raw Data.csv`, …) plus `meta/time.csv` and `meta/device.csv`, or one such CSV.
///
/// Every CSV outside `meta/` whose first column is `"Time (s)"` is read, its columns recognised by
/// name: `Acceleration x/y/z (m/s^2)` (the "with g" experiment: specific force), `Gyroscope x/y/z
/// (rad/s)`, `Magnetic field x/y/z (µT)`, `Pressure (hPa)` (converted to kPa). `Linear
/// Acceleration` columns are gravity-free, not an accelerometer reading, and are ignored (the
/// metadata says so). All CSV variants are accepted: comma, tab or semicolon separated, decimal
/// point or decimal comma. Rows padded with `NaN` times are skipped.
///
/// Timestamps are phyphox's experiment time (seconds since the first start, pauses excluded). The
/// wall clock is kept in the descriptor's metadata from `meta/time.csv`: `phyphox.startSystemTime`
/// (UTC epoch seconds of the first START) and `phyphox.timeEvents` (every START/PAUSE event as
/// `EVENT experimentTime=systemTime`).
enum PhyphoxExport {
  /// Whether a header line looks like a phyphox export table.
  static func matches(headerLine: String) -> Bool {
    ColumnIndex.normalize(headerLine).hasPrefix("time (s)")
  }

  /// The most data tables an export may have (256). phyphox writes one per export set, rarely more
  /// than ten; every table read keeps an inflated temporary file open, so thousands of them would
  /// run out of file descriptors, and detection probes no more than this many.
  static let maximumTableCount = 256

  /// Whether a container looks like a phyphox export.
  static func matches(_ container: RecordingContainer) -> Bool {
    if container.path(named: "time.csv", under: "meta") != nil { return true }
    return tables(container).prefix(maximumTableCount).contains { path in
      (try? container.firstLine(path)).map(matches(headerLine:)) ?? false
    }
  }

  /// The data tables of a container (CSVs outside `meta/`).
  static func tables(_ container: RecordingContainer) -> [String] {
    container.paths.filter { path in
      let components = path.lowercased().split(separator: "/")
      return path.lowercased().hasSuffix(".csv") && !components.dropLast().contains("meta")
    }
  }

  static func open(_ url: URL, options: RecordingReader.Options) throws -> any RecordingRowStream {
    var notes = [
      "format": RecordingFormat.phyphox.rawValue,
      "clock": "phyphox experiment time (s, pauses excluded)",
    ]
    if RecordingContainer.isPlainFile(url) {
      let stream = try table(
        try CSVBytes(contentsOf: url), name: url.lastPathComponent, notes: &notes, options: options)
      return stream.withDescriptor(name: url.lastPathComponent, metadata: notes)
    }
    let container = try RecordingContainer(url)
    if let path = container.path(named: "time.csv", under: "meta") {
      try readTimeEvents(try metadataBytes(container, path), into: &notes)
    }
    if let path = container.path(named: "device.csv", under: "meta") {
      try readProperties(try metadataBytes(container, path), into: &notes)
    }
    let tablePaths = tables(container)
    guard tablePaths.count <= maximumTableCount else {
      throw RecordingError(
        .unreadable, file: url.path,
        "holds \(tablePaths.count) CSV tables; a phyphox export has at most \(maximumTableCount)")
    }
    var parts: [any RecordingRowStream] = []
    for path in tablePaths where try container.size(path) > 0 {
      let bytes = try container.bytes(path)
      guard matches(headerLine: try bytes.firstLine()) else { continue }
      let stream = try table(
        bytes, name: path, notes: &notes, options: options, allowsNoSensors: true)
      if !stream.descriptor.sensors.isEmpty { parts.append(stream) }
    }
    guard !parts.isEmpty else {
      throw RecordingError(
        .malformedHeader, file: url.path,
        "no phyphox table with accelerometer, gyroscope, magnetometer or pressure columns")
    }
    return MergedRecordingStream(parts: parts, name: url.lastPathComponent, metadata: notes)
  }

  /// A metadata table, refused at once when its size says it is larger than
  /// ``RecordingContainer/maximumMetadataSize`` (an archive's declared size may lie, so the readers
  /// check how far they have read too).
  private static func metadataBytes(
    _ container: RecordingContainer, _ path: String
  ) throws
    -> CSVBytes
  {
    guard try container.size(path) <= RecordingContainer.maximumMetadataSize else {
      throw metadataTooLarge(container.displayName(path))
    }
    return try container.bytes(path)
  }

  private static func metadataTooLarge(_ file: String) -> RecordingError {
    RecordingError(
      .unreadable, file: file,
      "is larger than \(RecordingContainer.maximumMetadataSize >> 20) MiB, the most a metadata file "
        + "may be")
  }

  /// Throws when a metadata table has been read past its size limit.
  private static func checkMetadataSize(_ cursor: CSVCursor) throws {
    if cursor.offset > RecordingContainer.maximumMetadataSize {
      throw metadataTooLarge(cursor.bytes.fileName)
    }
  }

  /// The separator and decimal mark of a phyphox table, from its header and first data line.
  static func dialect(_ bytes: CSVBytes) throws -> (separator: UInt8, decimalComma: Bool) {
    var cursor = CSVCursor(bytes)
    let header = try cursor.nextLine() ?? ""
    let separator: UInt8
    if header.contains("\"\t\"") || (header.contains("\t") && !header.contains(",")) {
      separator = 0x09
    } else if header.contains("\";\"") || (header.contains(";") && !header.contains(",")) {
      separator = UInt8(ascii: ";")
    } else {
      separator = UInt8(ascii: ",")
    }
    let data = try cursor.nextLine() ?? ""
    return (separator, separator != UInt8(ascii: ",") && data.contains(","))
  }

  private static func table(
    _ bytes: CSVBytes, name: String, notes: inout [String: String],
    options: RecordingReader.Options,
    allowsNoSensors: Bool = false
  ) throws -> CSVTableStream {
    let (separator, decimalComma) = try dialect(bytes)
    var cursor = CSVCursor(bytes, separator: separator)
    let names = try CSVTableStream.readHeader(&cursor)
    let split = names.map(RecordingUnits.split)
    func column(_ base: String) -> Int? { split.firstIndex { $0.base == base } }
    func headerError(_ message: String) -> RecordingError {
      RecordingError(.malformedHeader, file: bytes.fileName, line: 1, message)
    }
    guard let time = column("time") else { throw headerError("no \"Time (s)\" column") }
    var layout = ColumnLayout(time: time, columnNames: names)
    layout.missingTimeSkipsRow = true
    func vector(_ base: String, _ factor: (String) -> Double?) throws -> ColumnLayout.Vector? {
      guard let x = column(base + " x"), let y = column(base + " y"), let z = column(base + " z")
      else {
        return nil
      }
      let unit = split[x].unit ?? ""
      guard let scale = factor(unit) else {
        throw headerError("unknown unit \"\(unit)\" for \(names[x])")
      }
      return .init(columns: SIMD3(x, y, z), scale: SIMD3(repeating: scale))
    }
    layout.accelerometer = try vector("acceleration", RecordingUnits.acceleration)
    layout.gyroscope = try vector("gyroscope", RecordingUnits.angularRate)
    layout.magnetometer = try vector("magnetic field", RecordingUnits.magneticField)
    if let p = column("pressure") {
      let unit = split[p].unit ?? "hpa"
      guard let scale = RecordingUnits.pressure(unit) else {
        throw headerError("unknown pressure unit \"\(unit)\"")
      }
      layout.pressure = .init(column: p, scale: scale)
    }
    if column("linear acceleration x") != nil {
      notes["ignoredColumns"] =
        "Linear Acceleration (gravity removed; not a raw accelerometer reading)"
    }
    if layout.sensors.isEmpty && !allowsNoSensors {
      throw headerError("no accelerometer (with g), gyroscope, magnetic field or pressure columns")
    }
    return CSVTableStream(
      cursor: cursor, layout: layout, headerColumnCount: names.count,
      descriptor: StreamDescriptor(name: name, sensors: layout.sensors, nominalSampleRate: nil),
      options: options,
      decimalComma: decimalComma)
  }

  /// Reads `meta/time.csv`: `"event","experiment time","system time","system time text"`.
  private static func readTimeEvents(_ bytes: CSVBytes, into notes: inout [String: String]) throws {
    let (separator, decimalComma) = try dialect(bytes)
    var cursor = CSVCursor(bytes, separator: separator)
    var fields: [CSVField] = []
    guard try cursor.nextRow(into: &fields) else { return }
    let index = ColumnIndex(fields.map(cursor.bytes.string))
    guard let event = index("event"), let experiment = index("experiment time"),
      let system = index("system time")
    else {
      return
    }
    var events: [String] = []
    while try cursor.nextRow(into: &fields) {
      try checkMetadataSize(cursor)
      guard fields.count > Swift.max(event, experiment, system) else { continue }
      let name = cursor.bytes.string(fields[event])
      guard let t = try? cursor.bytes.double(fields[experiment], decimalComma: decimalComma),
        let s = try? cursor.bytes.double(fields[system], decimalComma: decimalComma)
      else {
        throw RecordingError(
          .malformedRow, file: cursor.bytes.fileName, line: cursor.lineNumber,
          "expected experiment and system times"
        )
      }
      events.append("\(name) \(t)=\(s)")
      if name == "START" && notes["phyphox.startSystemTime"] == nil {
        notes["phyphox.startSystemTime"] = "\(s)"
      }
    }
    notes["phyphox.timeEvents"] = events.joined(separator: "; ")
  }

  /// Reads `meta/device.csv`: `"property","value"` rows.
  private static func readProperties(_ bytes: CSVBytes, into notes: inout [String: String]) throws {
    let (separator, _) = try dialect(bytes)
    var cursor = CSVCursor(bytes, separator: separator)
    var fields: [CSVField] = []
    guard try cursor.nextRow(into: &fields) else { return }
    while try cursor.nextRow(into: &fields) {
      try checkMetadataSize(cursor)
      guard fields.count >= 2 else { continue }
      notes["phyphox.device." + cursor.bytes.string(fields[0])] = cursor.bytes.string(fields[1])
    }
  }
}
