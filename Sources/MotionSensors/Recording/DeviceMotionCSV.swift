// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath

/// Reads CSV files of Core Motion's device motion as iPhone logging apps write them: one row per
/// `CMDeviceMotion`, columns named after its properties — `gravity.x`, `rotationRate.x`,
/// `userAcceleration.x` (and their `y`, `z`), optionally `attitude.roll`/`pitch`/`yaw` and
/// `magneticField.x`… — such as the MotionSense dataset's `A_DeviceMotion_data` files
/// (Malekzadeh et al., IoTDI 2019).
///
/// Time: a `timestamp` column (Core Motion's timestamp, seconds since boot) when there is one.
/// MotionSense's files have none: their first column is unnamed and numbers the rows, which
/// Core Motion delivered at 50 Hz (the dataset's documentation), so a row's time is its number
/// times 0.02 s; the descriptor's metadata says so (`clock`).
///
/// What is replayed is what the phone measured, through Core Motion's own filter: the
/// accelerometer is Core Motion's acceleration `gravity + userAcceleration` (g with Apple's sign),
/// converted to specific force `f = −a · 9.80665`; the gyroscope the bias-corrected
/// `rotationRate` (rad/s); the magnetometer the calibrated `magneticField` (µT), when present.
/// Apple's split is kept as ``GroundTruth`` beside them: `gravity` `gravity · 9.80665` (pointing
/// down, as ``GroundTruth`` wants) and `linearAcceleration` `−userAcceleration · 9.80665`. It is
/// Apple's estimate, not measured truth (`groundTruthSource` in the metadata). The samples are
/// Core Motion's instants (``SampleTiming/deviceMotionInstants``), which the fusion is told.
enum DeviceMotionCSV {
  /// MotionSense's rate: the time of a row numbered `n` is `n · rowPeriod`.
  static let rowPeriod = 0.02

  /// Whether a header line names device motion's gravity, rotation rate and user acceleration.
  static func matches(headerLine: String) -> Bool {
    let names = Set(
      headerLine.lowercased().split(separator: ",").map {
        $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" \t\r\u{FEFF}"))
      })
    return ["gravity.x", "rotationrate.x", "useracceleration.x"].allSatisfy(names.contains)
  }

  static func open(_ url: URL, options: RecordingReader.Options) throws -> MergedRecordingStream {
    let bytes = try CSVBytes(contentsOf: url)
    var cursor = CSVCursor(bytes)
    let names = try CSVTableStream.readHeader(&cursor)
    let index = ColumnIndex(names)
    let g = Units.standardGravity
    guard let gravity = index.vector("gravity.x", "gravity.y", "gravity.z"),
      let user = index.vector("userAcceleration.x", "userAcceleration.y", "userAcceleration.z"),
      let rotation = index.vector("rotationRate.x", "rotationRate.y", "rotationRate.z")
    else {
      throw RecordingError(
        .malformedHeader, file: bytes.fileName, line: 1,
        "expected gravity, userAcceleration and rotationRate columns (x, y and z of each)")
    }
    var notes = [
      "format": RecordingFormat.deviceMotion.rawValue,
      "groundTruthSource":
        "Apple Core Motion device motion (gravity and user acceleration): an estimate, not measured truth",
    ]
    let time: Int
    let timeEncoding: ColumnLayout.TimeEncoding
    if let column = index("timestamp") {
      time = column
      timeEncoding = .decimal(scale: 1)
      notes["clock"] = "seconds since boot (Core Motion timestamps)"
    } else if names.first?.trimmingCharacters(in: .whitespaces).isEmpty == true {
      time = 0
      timeEncoding = .decimal(scale: rowPeriod)
      notes["clock"] = "row number × \(rowPeriod) s (no time column; MotionSense's 50 Hz)"
    } else {
      throw RecordingError(
        .malformedHeader, file: bytes.fileName, line: 1,
        "no time: expected a \"timestamp\" column, or an unnamed first column numbering the rows "
          + "(MotionSense)")
    }

    // Every table reads every row: only the first counts rows of the wrong length.
    var isFirstTable = true
    func table(
      _ sensors: SensorSet, _ configure: (inout ColumnLayout) -> Void
    ) -> CSVTableStream {
      defer { isFirstTable = false }
      var layout = ColumnLayout(time: time, columnNames: names)
      layout.timeEncoding = timeEncoding
      configure(&layout)
      return CSVTableStream(
        cursor: cursor, layout: layout, headerColumnCount: names.count,
        descriptor: StreamDescriptor(
          name: bytes.fileName, sensors: sensors, nominalSampleRate: nil),
        options: options, countsRowsOfTheWrongLength: isFirstTable,
        countsTimeRejections: isFirstTable)
    }
    let minusG = SIMD3(repeating: -g)
    var parts: [any RecordingRowStream] = [
      SummedAccelerometerStream(
        table(.accelerometer) { $0.accelerometer = .init(columns: user, scale: minusG) },
        table(.accelerometer) { $0.accelerometer = .init(columns: gravity, scale: minusG) },
        userFile: bytes.fileName, gravityFile: bytes.fileName,
        descriptor: StreamDescriptor(
          name: bytes.fileName, sensors: .accelerometer, nominalSampleRate: nil)),
      table(.gyroscope) { layout in
        layout.gyroscope = .init(columns: rotation)
        // Apple's split of the same rows, beside what they add up to.
        layout.gravity = .init(columns: gravity, scale: SIMD3(repeating: g))
        layout.linearAcceleration = .init(columns: user, scale: minusG)
      },
    ]
    if let field = index.vector("magneticField.x", "magneticField.y", "magneticField.z") {
      parts.append(table(.magnetometer) { $0.magnetometer = .init(columns: field) })
    }
    notes["accelerometerSource"] = "gravity + userAcceleration, g with Apple's sign"
    notes["gyroscopeSource"] = "rotationRate (bias-corrected)"
    return MergedRecordingStream(
      parts: parts, name: url.lastPathComponent, hasGroundTruth: true, metadata: notes,
      sampleTiming: .deviceMotionInstants)
  }
}
