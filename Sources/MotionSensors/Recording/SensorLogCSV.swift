// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath

/// Reads CSV logs of the SensorLog app (Bernd Thomas; iOS), one wide row per logging tick with
/// columns such as `accelerometerTimestamp_sinceReboot(s)`, `accelerometerAccelerationX(G)`,
/// `gyroRotationX(rad/s)`, `magnetometerX(µT)`, `altimeterPressure(kPa)` and the fused
/// `motion…` columns. A zip holding one such CSV is read too; a zip holding several (SensorLog
/// exports one log per session, and a watch's) is an error that names them, rather than a guess.
///
/// Each sensor group has its own timestamp column (seconds since boot, Core Motion's clock) and
/// SensorLog repeats a group's last values on every row until it ticks again, so each group is read
/// on its own clock, repeats are dropped, and the groups are merged by timestamp. Conversions:
/// the accelerometer is in g with Apple's sign and becomes specific force, `f = −a · 9.80665`;
/// rotation rate is rad/s, magnetic field µT, pressure kPa already.
///
/// Apple's own fused device motion (`motionTimestamp_sinceReboot(s)` group) is kept for comparison
/// as ``GroundTruth`` on samples at the motion timestamps: `earthFromSensor` is
/// `motionQuaternionW/X/Y/Z` as logged (Core Motion's attitude in the frame named by the
/// `sensorlog.referenceFrame` metadata, not converted), `angularVelocity` the calibrated
/// `motionRotationRate`, `gravity` `motionGravity · 9.80665` (pointing down, as ``GroundTruth``
/// wants) and `linearAcceleration` `−motionUserAcceleration · 9.80665`. It is Apple's estimate, not
/// measured truth; the descriptor's metadata says so (`groundTruthSource`).
///
/// A log of device motion alone (the raw sensors switched off in the app) is read through it:
/// the accelerometer is `motionGravity + motionUserAcceleration` of each row (Core Motion's
/// acceleration, converted as above) and the gyroscope the bias-corrected `motionRotationRate`,
/// as for MotionSense; the metadata says so (`accelerometerSource`, `gyroscopeSource`), and the
/// descriptor's ``SampleTiming`` tells the fusion that these samples are Core Motion's instants.
enum SensorLogCSV {
  /// How many rows tell which sensor groups were logged (2 s at 100 Hz; every group of SensorLog
  /// logs from the first row).
  static let rowsThatShowTheGroups = 200

  /// Whether a header line is SensorLog's.
  static func matches(headerLine: String) -> Bool {
    let lower = headerLine.lowercased()
    return lower.contains("loggingtime")
      && (lower.contains("accelerometer") || lower.contains("gyro") || lower.contains("motion"))
  }

  /// A SensorLog log opened for reading: its bytes, the cursor after the header, the header's
  /// names, the index of those names without their unit suffix, and whether numbers use a
  /// decimal comma.
  struct Table {
    var bytes: CSVBytes
    var cursor: CSVCursor
    var names: [String]
    var index: ColumnIndex
    var decimalComma: Bool
  }

  /// Opens the log at `url` (a CSV, or a zip holding exactly one) and reads its header.
  static func openTable(_ url: URL) throws -> Table {
    let bytes: CSVBytes
    if RecordingContainer.isZipArchive(url) {
      let container = try RecordingContainer(url)
      let logs = container.paths.filter {
        $0.lowercased().hasSuffix(".csv")
          && ((try? container.firstLine($0)).map(matches(headerLine:)) ?? false)
      }
      guard let path = logs.first else {
        throw RecordingError(.unknownFormat, file: url.path, "no SensorLog CSV in this archive")
      }
      // Several sessions, or a phone's and a watch's log: counting one of them silently would
      // answer for a recording the user may not have meant.
      guard logs.count == 1 else {
        let shown = logs.prefix(5).map { container.displayName($0) }.joined(separator: ", ")
        throw RecordingError(
          .unknownFormat, file: url.path,
          "this archive holds \(logs.count) SensorLog logs (\(shown)\(logs.count > 5 ? ", …" : "")); "
            + "extract the one to read and give it alone")
      }
      bytes = try container.bytes(path)
    } else {
      bytes = try CSVBytes(contentsOf: url)
    }
    // The header's names hold no separator of any kind, so the header tells which one the file
    // uses. With another separator than a comma, a comma in the first data row is a decimal mark
    // (a file saved again by a spreadsheet in a German or French locale).
    let headerLine = try bytes.firstLine()
    let separator: UInt8 =
      if headerLine.contains(",") {
        UInt8(ascii: ",")
      } else if headerLine.contains("\t") {
        0x09
      } else if headerLine.contains("|") {
        UInt8(ascii: "|")
      } else {
        UInt8(ascii: ";")
      }
    var lines = CSVCursor(bytes)
    _ = try lines.nextLine()
    let firstRow = try lines.nextLine() ?? ""
    let decimalComma = separator != UInt8(ascii: ",") && firstRow.contains(",")
    var cursor = CSVCursor(bytes, separator: separator)
    let names = try CSVTableStream.readHeader(&cursor)
    // Names carry a unit suffix in parentheses; match on the part before it.
    let index = ColumnIndex(
      names.map { name in
        String(name.split(separator: "(", maxSplits: 1).first ?? "").trimmingCharacters(
          in: .whitespaces)
      })
    return Table(
      bytes: bytes, cursor: cursor, names: names, index: index, decimalComma: decimalComma)
  }

  static func open(_ url: URL, options: RecordingReader.Options) throws -> MergedRecordingStream {
    let opened = try openTable(url)
    let (bytes, cursor, names, index, decimalComma) = (
      opened.bytes, opened.cursor, opened.names, opened.index, opened.decimalComma
    )
    var notes = [
      "format": RecordingFormat.sensorLog.rawValue,
      "clock": "seconds since boot (Core Motion timestamps)",
    ]
    var parts: [any RecordingRowStream] = []

    // SensorLog writes every column whichever sensors are switched on, and leaves those of the
    // others empty. The accelerometer, gyroscope and magnetometer start with the log: one whose
    // timestamp is empty in each of the first rows (while another group's is not) is switched
    // off, so it is neither announced nor read; with device motion logged, the accelerometer and
    // gyroscope are then read from it (below). The altimeter is kept however late it starts (its
    // first reading can take seconds).
    let loggedTimeColumns: Set<Int> = try {
      var probe = cursor
      var fields: [CSVField] = []
      var logged: Set<Int> = []
      var rows = 0
      while rows < Self.rowsThatShowTheGroups, try probe.nextRow(into: &fields) {
        rows += 1
        for (column, field) in fields.enumerated() where !logged.contains(column) {
          if !probe.bytes.trimmed(field).isEmpty { logged.insert(column) }
        }
      }
      return logged
    }()

    let groupTimeColumns = [
      "accelerometerTimestamp_sinceReboot", "gyroTimestamp_sinceReboot",
      "magnetometerTimestamp_sinceReboot", "motionTimestamp_sinceReboot",
      "altimeterTimestamp_sinceReboot",
    ].compactMap { index($0) }
    let anyGroupIsLogged = groupTimeColumns.contains(where: loggedTimeColumns.contains)

    /// Every group reads every row: only the first table counts rows of the wrong length, and only
    /// the first table of each time column the rows skipped for their time.
    var isFirstTable = true
    var timeColumnsCounted: Set<Int> = []
    /// The rows of one sensor group, or `nil` when the file lacks its columns, or when the group
    /// `startsWithTheLog` and was switched off (see above).
    func table(
      _ timeColumn: String, sensors: SensorSet, startsWithTheLog: Bool = false,
      configure: (inout ColumnLayout) -> Bool
    ) -> RepeatedTimestampFilter? {
      guard let time = index(timeColumn) else { return nil }
      if startsWithTheLog, anyGroupIsLogged, !loggedTimeColumns.contains(time) { return nil }
      var layout = ColumnLayout(time: time, columnNames: names)
      layout.missingTimeSkipsRow = true
      guard configure(&layout) else { return nil }
      let table = CSVTableStream(
        cursor: cursor, layout: layout, headerColumnCount: names.count,
        descriptor: StreamDescriptor(name: timeColumn, sensors: sensors, nominalSampleRate: nil),
        options: options, decimalComma: decimalComma, countsRowsOfTheWrongLength: isFirstTable,
        countsTimeRejections: timeColumnsCounted.insert(time).inserted)
      isFirstTable = false
      return RepeatedTimestampFilter(table)
    }
    var sensors: SensorSet = []
    func group(
      _ timeColumn: String, sensors kind: SensorSet, startsWithTheLog: Bool = false,
      configure: (inout ColumnLayout) -> Bool
    ) {
      guard
        let rows = table(
          timeColumn, sensors: kind, startsWithTheLog: startsWithTheLog, configure: configure)
      else { return }
      parts.append(rows)
      sensors.formUnion(kind)
    }
    let g = Units.standardGravity
    group("accelerometerTimestamp_sinceReboot", sensors: .accelerometer, startsWithTheLog: true) {
      layout in
      guard
        let v = index.vector(
          "accelerometerAccelerationX", "accelerometerAccelerationY", "accelerometerAccelerationZ")
      else { return false }
      layout.accelerometer = .init(columns: v, scale: SIMD3(repeating: -g))
      return true
    }
    group("gyroTimestamp_sinceReboot", sensors: .gyroscope, startsWithTheLog: true) { layout in
      guard let v = index.vector("gyroRotationX", "gyroRotationY", "gyroRotationZ") else {
        return false
      }
      layout.gyroscope = .init(columns: v)
      return true
    }
    group("magnetometerTimestamp_sinceReboot", sensors: .magnetometer, startsWithTheLog: true) {
      layout in
      guard let v = index.vector("magnetometerX", "magnetometerY", "magnetometerZ") else {
        return false
      }
      layout.magnetometer = .init(columns: v)
      return true
    }
    group("altimeterTimestamp_sinceReboot", sensors: .barometer) { layout in
      guard let p = index("altimeterPressure") else { return false }
      layout.pressure = .init(column: p)
      return true
    }
    var hasDeviceMotion = false
    group("motionTimestamp_sinceReboot", sensors: []) { layout in
      if let w = index("motionQuaternionW"), let x = index("motionQuaternionX"),
        let y = index("motionQuaternionY"),
        let z = index("motionQuaternionZ")
      {
        layout.attitude = .init(w: w, x: x, y: y, z: z)
      }
      if let v = index.vector("motionRotationRateX", "motionRotationRateY", "motionRotationRateZ") {
        layout.angularVelocity = .init(columns: v)
      }
      if let v = index.vector("motionGravityX", "motionGravityY", "motionGravityZ") {
        layout.gravity = .init(columns: v, scale: SIMD3(repeating: g))
      }
      if let v = index.vector(
        "motionUserAccelerationX", "motionUserAccelerationY", "motionUserAccelerationZ")
      {
        layout.linearAcceleration = .init(columns: v, scale: SIMD3(repeating: -g))
      }
      hasDeviceMotion = layout.hasGroundTruth
      return hasDeviceMotion
    }
    // Logged with device motion only (SensorLog can switch each sensor off): the accelerometer
    // is Core Motion's gravity plus user acceleration of the same row, and the gyroscope its
    // bias-corrected rotation rate, as for MotionSense. Steps, activity and fusion then run on
    // what the phone measured, through its own filter.
    if !sensors.contains(.accelerometer) {
      let motionTime = "motionTimestamp_sinceReboot"
      /// Three device-motion columns read as an accelerometer in g with Apple's sign.
      func motionAcceleration(_ x: String, _ y: String, _ z: String) -> RepeatedTimestampFilter? {
        table(motionTime, sensors: .accelerometer) { layout in
          guard let v = index.vector(x, y, z) else { return false }
          layout.accelerometer = .init(columns: v, scale: SIMD3(repeating: -g))
          return true
        }
      }
      let user = motionAcceleration(
        "motionUserAccelerationX", "motionUserAccelerationY", "motionUserAccelerationZ")
      let gravity = motionAcceleration("motionGravityX", "motionGravityY", "motionGravityZ")
      if let user, let gravity {
        parts.append(
          SummedAccelerometerStream(
            user, gravity, userFile: bytes.fileName, gravityFile: bytes.fileName,
            descriptor: StreamDescriptor(
              name: motionTime, sensors: .accelerometer, nominalSampleRate: nil)))
        sensors.insert(.accelerometer)
        notes["accelerometerSource"] =
          "motionGravity + motionUserAcceleration (accelerometer not logged), g with Apple's sign"
      }
    }
    if !sensors.contains(.gyroscope) {
      group("motionTimestamp_sinceReboot", sensors: .gyroscope) { layout in
        guard
          let v = index.vector("motionRotationRateX", "motionRotationRateY", "motionRotationRateZ")
        else { return false }
        layout.gyroscope = .init(columns: v)
        notes["gyroscopeSource"] = "motionRotationRate (gyro not logged): bias-corrected"
        return true
      }
    }
    guard !parts.isEmpty else {
      throw RecordingError(
        .malformedHeader, file: bytes.fileName, line: 1,
        "no accelerometer, gyro, magnetometer, altimeter or motion columns with their timestamp columns"
      )
    }
    if hasDeviceMotion {
      notes["groundTruthSource"] =
        "Apple Core Motion device motion as logged by SensorLog (an estimate, not measured truth)"
      if let frame = index("motionAttitudeReferenceFrame") {
        var probe = cursor
        var fields: [CSVField] = []
        if try probe.nextRow(into: &fields), fields.count > frame {
          notes["sensorlog.referenceFrame"] = probe.bytes.string(fields[frame])
        }
      }
    }
    // Both inertial sensors read from device motion: the samples are Core Motion's instants.
    let fromDeviceMotion = notes["accelerometerSource"] != nil && notes["gyroscopeSource"] != nil
    return MergedRecordingStream(
      parts: parts, name: url.lastPathComponent, hasGroundTruth: hasDeviceMotion, metadata: notes,
      sampleTiming: fromDeviceMotion ? .deviceMotionInstants : .sensorOutputs)
  }
}
