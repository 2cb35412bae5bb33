// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath

/// Reads exports of the Sensor Logger app (Kelvin Choi; iOS and Android): a zip archive or folder
/// with one CSV per sensor (`time,seconds_elapsed,z,y,x`) and a `Metadata.csv`.
///
/// Columns are matched by header name. Times are the `time` column, UTC epoch nanoseconds (parsed
/// exactly as integers, then converted to seconds). The files replayed, each sensor ticking on its
/// own and merged by timestamp:
///
/// - accelerometer: the raw, gravity-including file. Android: `TotalAcceleration.csv`, else
///   `AccelerometerUncalibrated.csv` (m/s², already specific force). iOS:
///   `AccelerometerUncalibrated.csv` in g with Apple's sign, converted with `f = −a · 9.80665`;
///   when `Metadata.csv` says `standardisation` is `true` the app has already converted it to
///   Android's convention and m/s². `Accelerometer.csv` is *user* acceleration (gravity removed) on
///   both platforms; only when no raw file exists is the accelerometer rebuilt as
///   `Accelerometer.csv` + the nearest `Gravity.csv` sample within 20 ms (see
///   ``SummedAccelerometerStream``; negated for iOS's sign; in m/s² already).
/// - gyroscope: `GyroscopeUncalibrated.csv`, else `Gyroscope.csv` (rad/s, same sign on both).
/// - magnetometer: `MagnetometerUncalibrated.csv`, else `Magnetometer.csv` (µT).
/// - pressure: `Barometer.csv` `pressure` (mbar = hPa, converted to kPa).
///
/// Without `Metadata.csv` (or without its `platform` column) the Android convention is assumed and
/// the descriptor's metadata says so, except that a raw accelerometer file whose readings are
/// about 1 (not 9.8) is taken for iOS's g with Apple's sign. The readings also have the last word
/// when `Metadata.csv` is there: a raw file about 1 where its `platform` and `standardisation` say
/// m/s² (or about 9.8 where they say g) is read as the readings say (g with Apple's sign, or m/s²
/// with Android's) and the descriptor's metadata says so under `metadataDisagreement`.
enum SensorLoggerExport {
  static let metadataFile = "Metadata.csv"
  static let sensorFiles = [
    "Accelerometer.csv", "AccelerometerUncalibrated.csv", "TotalAcceleration.csv", "Gyroscope.csv",
    "GyroscopeUncalibrated.csv", "Magnetometer.csv", "MagnetometerUncalibrated.csv", "Gravity.csv",
    "Orientation.csv", "Barometer.csv",
  ]

  /// Whether a header line is a Sensor Logger sensor file's (`time,seconds_elapsed,...` or the
  /// older `time,z,y,x`).
  static func matches(headerLine: String) -> Bool {
    let names = headerLine.split(separator: ",").map { ColumnIndex.normalize(String($0)) }
    guard names.first == "time" else { return false }
    return names.contains("seconds_elapsed") || Set(["x", "y", "z"]).isSubset(of: Set(names))
  }

  /// Whether a container looks like a Sensor Logger export.
  static func matches(_ container: RecordingContainer) -> Bool {
    if container.path(named: metadataFile) != nil,
      sensorFiles.contains(where: { container.path(named: $0) != nil })
    {
      return true
    }
    for name in sensorFiles {
      if let path = container.path(named: name), let line = try? container.firstLine(path),
        matches(headerLine: line)
      {
        return true
      }
    }
    return false
  }

  /// Reads `Metadata.csv` into a dictionary keyed by its header names.
  static func metadata(_ container: RecordingContainer) throws -> [String: String] {
    guard let path = container.path(named: metadataFile) else { return [:] }
    let bytes = try container.bytes(path)
    var cursor = CSVCursor(bytes)
    var fields: [CSVField] = []
    guard try cursor.nextRow(into: &fields) else { return [:] }
    let names = fields.map(cursor.bytes.string)
    guard try cursor.nextRow(into: &fields) else { return [:] }
    // Two rows are read; their values are kept, so they are bounded like other metadata.
    guard cursor.offset <= RecordingContainer.maximumMetadataSize else {
      throw RecordingError(
        .unreadable, file: bytes.fileName, line: cursor.lineNumber,
        "the metadata rows are longer than \(RecordingContainer.maximumMetadataSize >> 20) MiB")
    }
    var result: [String: String] = [:]
    for (name, field) in zip(names, fields) {
      result[name.trimmingCharacters(in: .whitespaces)] = cursor.bytes.string(field)
    }
    return result
  }

  static func open(_ url: URL, options: RecordingReader.Options) throws -> MergedRecordingStream {
    // One table of an export (its header says Sensor Logger) lacks the metadata that says its
    // units and signs, and the other sensors: the export is what is read.
    let type =
      (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType
    if type == .typeRegular, !RecordingContainer.isZipArchive(url) {
      let folder = url.deletingLastPathComponent().path
      throw RecordingError(
        .unknownFormat, file: url.path,
        "this is one table of a Sensor Logger export; give the export itself, its folder ("
          + (folder.isEmpty ? "." : folder)
          + ") or its zip: Metadata.csv there says the units and signs of the tables")
    }
    let container = try RecordingContainer(url)
    let meta = try metadata(container)
    // An empty cell says no more than a missing column.
    let platform = meta["platform"].map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      .flatMap { $0.isEmpty ? nil : $0 }
    let standardised = meta["standardisation"]?.lowercased() == "true"
    let isIOS = platform == "ios"
    var notes: [String: String] = [
      "format": RecordingFormat.sensorLogger.rawValue,
      "clock": "UTC epoch seconds (Sensor Logger `time`, nanoseconds)",
    ]
    for (key, value) in meta where !value.isEmpty { notes["sensorlogger." + key] = value }
    if platform == nil { notes["platform"] = "unknown; Android conventions assumed" }

    func nonEmpty(_ name: String) throws -> String? {
      guard let path = container.path(named: name), try container.size(path) > 0 else { return nil }
      return path
    }
    var parts: [any RecordingRowStream] = []
    var sensors: SensorSet = []
    var used: [String] = []

    // Accelerometer: the raw, gravity-including reading.
    var accelerometerFile: (path: String, scale: Double)?
    if isIOS {
      accelerometerFile = try nonEmpty("AccelerometerUncalibrated.csv").map {
        ($0, standardised ? 1 : -Units.standardGravity)
      }
    } else if let total = try nonEmpty("TotalAcceleration.csv") {
      accelerometerFile = (total, 1)
    } else if let uncalibrated = try nonEmpty("AccelerometerUncalibrated.csv") {
      // Android writes it in m/s² (specific force), iOS in g with Apple's sign. Without the
      // platform in the metadata, the readings tell which (below).
      accelerometerFile = (uncalibrated, 1)
    }
    if let (path, claimedScale) = accelerometerFile {
      // The readings have the last word on the unit: Metadata.csv can be edited, copied from
      // another export or describe a setting that was changed mid-way, and a walk read in the
      // wrong unit is 9.8 times too weak or too strong (steps lost, the activity unknown). Only
      // plain iOS writes g, so g also means Apple's sign; m/s² is Android's (standardised iOS
      // included).
      var head = try vectorStream(container, path, kind: .accelerometer, scale: 1, options: options)
      let claimsG = claimedScale != 1
      if let inG = try AccelerationUnitProbe.isInG(reading: &head), inG != claimsG {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        accelerometerFile = (path, inG ? -Units.standardGravity : 1)
        if let platform {
          notes["metadataDisagreement"] =
            "Metadata.csv says platform \(platform), standardisation \(standardised) ("
            + (claimsG ? "g with Apple's sign" : "m/s² with Android's sign")
            + ") but \(name) reads about "
            + (inG ? "1: read as g with Apple's sign" : "9.8: read as m/s² with Android's sign")
        } else {
          notes["platform"] = "unknown; \(name) reads about 1: g (iOS) assumed"
        }
      }
    }
    if let (path, scale) = accelerometerFile {
      parts.append(
        try vectorStream(container, path, kind: .accelerometer, scale: scale, options: options))
      sensors.insert(.accelerometer)
      used.append(path)
    } else if let user = try nonEmpty("Accelerometer.csv"),
      let gravity = try nonEmpty("Gravity.csv")
    {
      // No raw file (e.g. Android schema 2): specific force is user acceleration plus gravity at
      // the instants both were logged, negated for iOS's Core Motion sign.
      let scale: Double = isIOS && !standardised ? -1 : 1
      parts.append(
        SummedAccelerometerStream(
          try vectorStream(container, user, kind: .accelerometer, scale: scale, options: options),
          try vectorStream(
            container, gravity, kind: .accelerometer, scale: scale, options: options),
          userFile: container.displayName(user), gravityFile: container.displayName(gravity),
          descriptor: StreamDescriptor(name: user, sensors: .accelerometer, nominalSampleRate: nil))
      )
      sensors.insert(.accelerometer)
      used += [user, gravity]
      notes["accelerometerSource"] =
        "Accelerometer.csv (user acceleration) + the nearest Gravity.csv sample within "
        + "\(SummedAccelerometerStream.maximumPairingGapMilliseconds) ms"
    }
    if let path = try nonEmpty("GyroscopeUncalibrated.csv") ?? nonEmpty("Gyroscope.csv") {
      parts.append(try vectorStream(container, path, kind: .gyroscope, scale: 1, options: options))
      sensors.insert(.gyroscope)
      used.append(path)
    }
    if let path = try nonEmpty("MagnetometerUncalibrated.csv") ?? nonEmpty("Magnetometer.csv") {
      parts.append(
        try vectorStream(container, path, kind: .magnetometer, scale: 1, options: options))
      sensors.insert(.magnetometer)
      used.append(path)
    }
    if let path = try nonEmpty("Barometer.csv") {
      parts.append(try barometerStream(container, path, options: options))
      sensors.insert(.barometer)
      used.append(path)
    }
    guard !parts.isEmpty else {
      throw RecordingError(
        .malformedHeader, file: url.path,
        "no raw sensor files found (looked for TotalAcceleration/AccelerometerUncalibrated, "
          + "GyroscopeUncalibrated/Gyroscope, MagnetometerUncalibrated/Magnetometer, Barometer .csv)"
      )
    }
    notes["files"] = used.joined(separator: ", ")
    if accelerometerFile?.scale == -Units.standardGravity {
      notes["accelerometerConversion"] =
        "iOS g with Apple's sign to specific force: f = -a * 9.80665"
    }
    let rate = meta["sampleRateMs"].flatMap { text -> Double? in
      // `sampleRateMs` lists periods in ms, `|`-separated; the smallest positive one is the
      // fastest. "nan", "inf" and absurdly small periods are not rates: keep finite periods of at
      // least 1 µs.
      let periods = text.split(separator: "|").compactMap { Double($0) }.filter {
        $0.isFinite && $0 >= 1e-3
      }
      return periods.min().map { 1000 / $0 }
    }
    let descriptor = StreamDescriptor(
      name: url.lastPathComponent, sensors: sensors, nominalSampleRate: rate, hasGroundTruth: false,
      metadata: notes)
    return MergedRecordingStream(parts: parts, descriptor: descriptor)
  }

  private static func header(_ bytes: CSVBytes) throws -> (CSVCursor, [String], ColumnIndex, Int) {
    var cursor = CSVCursor(bytes)
    let names = try CSVTableStream.readHeader(&cursor)
    let index = ColumnIndex(names)
    guard let time = index("time") else {
      throw RecordingError(.malformedHeader, file: bytes.fileName, line: 1, "no \"time\" column")
    }
    return (cursor, names, index, time)
  }

  private static func vectorStream(
    _ container: RecordingContainer, _ path: String, kind: SensorSet, scale: Double,
    options: RecordingReader.Options
  ) throws -> CSVTableStream {
    let bytes = try container.bytes(path)
    let (cursor, names, index, time) = try header(bytes)
    guard let columns = index.vector("x", "y", "z") else {
      throw RecordingError(
        .malformedHeader, file: bytes.fileName, line: 1, "expected columns x, y and z")
    }
    var layout = ColumnLayout(time: time, columnNames: names)
    layout.timeEncoding = .integer(unitsPerSecond: 1_000_000_000)
    let vector = ColumnLayout.Vector(columns: columns, scale: SIMD3(repeating: scale))
    switch kind {
    case .accelerometer: layout.accelerometer = vector
    case .gyroscope: layout.gyroscope = vector
    default: layout.magnetometer = vector
    }
    return CSVTableStream(
      cursor: cursor, layout: layout, headerColumnCount: names.count,
      descriptor: StreamDescriptor(name: path, sensors: kind, nominalSampleRate: nil),
      options: options)
  }

  private static func barometerStream(
    _ container: RecordingContainer, _ path: String, options: RecordingReader.Options
  ) throws -> CSVTableStream {
    let bytes = try container.bytes(path)
    let (cursor, names, index, time) = try header(bytes)
    guard let pressure = index("pressure") else {
      throw RecordingError(
        .malformedHeader, file: bytes.fileName, line: 1, "expected a \"pressure\" column")
    }
    var layout = ColumnLayout(time: time, columnNames: names)
    layout.timeEncoding = .integer(unitsPerSecond: 1_000_000_000)
    layout.pressure = .init(column: pressure, scale: 0.1)  // mbar (hPa) to kPa
    return CSVTableStream(
      cursor: cursor, layout: layout, headerColumnCount: names.count,
      descriptor: StreamDescriptor(name: path, sensors: .barometer, nominalSampleRate: nil),
      options: options)
  }
}
