// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath

/// Reads trials of the BROAD benchmark (Laidig, Caruso, Cereatti & Seel, "BROAD — A Benchmark for
/// Robust Inertial Orientation Estimation", Data 6(7), 2021; CC BY 4.0).
///
/// Columns: `t` (s), `gyr_x..z` (rad/s), `acc_x..z` (m/s², specific force), `mag_x..z` (µT),
/// `ref_qw..ref_qz` (sensor-to-ENU reference attitude, scalar first, `nan` while the optical
/// markers were occluded) and `movement` (0/1). Samples carry all three sensors and a
/// ``GroundTruth`` whose `earthFromSensor` is the reference turned into NWU
/// (`EarthFrame.eastNorthUp.rotation(to: .northWestUp) * q_ref`, `nil` while occluded) and whose
/// `isMovementPhase` is the movement flag. Columns are found by name, so their order may vary.
public enum BROADTrial {
  /// The sample period in seconds (286 Hz nominal: 1 / 0.0035 s ≈ 285.7 Hz).
  public static let samplePeriod = 0.0035

  /// Reads a whole trial into memory.
  ///
  /// - Throws: ``RecordingError`` for a missing file, a header that is not BROAD's, or a bad row.
  public static func load(
    _ url: URL, options: RecordingReader.Options = .init()
  ) throws -> [MotionSample] {
    try RecordingReader.readSamples(url, format: .broad, options: options)
  }

  static let requiredColumns = [
    "t", "gyr_x", "gyr_y", "gyr_z", "acc_x", "acc_y", "acc_z", "mag_x", "mag_y", "mag_z",
    "ref_qw", "ref_qx", "ref_qy", "ref_qz",
  ]

  /// Whether a header line looks like a BROAD trial's.
  static func matches(headerLine: String) -> Bool {
    let names = Set(headerLine.split(separator: ",").map { ColumnIndex.normalize(String($0)) })
    return requiredColumns.allSatisfy(names.contains)
  }

  static func open(
    _ bytes: CSVBytes, url: URL, options: RecordingReader.Options
  ) throws -> CSVTableStream {
    var cursor = CSVCursor(bytes)
    var fields: [CSVField] = []
    guard try cursor.nextRow(into: &fields) else {
      throw RecordingError(.malformedHeader, file: bytes.fileName, line: 1, "the file is empty")
    }
    let names = fields.map(cursor.bytes.string)
    let index = ColumnIndex(names)
    let missing = requiredColumns.filter { index($0) == nil }
    guard missing.isEmpty, let time = index("t") else {
      throw RecordingError(
        .malformedHeader, file: bytes.fileName, line: cursor.lineNumber,
        "not a BROAD header: missing column(s) \(missing.joined(separator: ", "))")
    }
    var layout = ColumnLayout(time: time, columnNames: names)
    layout.gyroscope = .init(columns: index.vector("gyr_x", "gyr_y", "gyr_z")!)
    layout.accelerometer = .init(columns: index.vector("acc_x", "acc_y", "acc_z")!)
    layout.magnetometer = .init(columns: index.vector("mag_x", "mag_y", "mag_z")!)
    layout.attitude = .init(
      w: index("ref_qw")!, x: index("ref_qx")!, y: index("ref_qy")!, z: index("ref_qz")!,
      earthRotation: EarthFrame.eastNorthUp.rotation(to: .northWestUp))
    layout.movement = index("movement")
    let descriptor = StreamDescriptor(
      name: url.lastPathComponent, sensors: layout.sensors, nominalSampleRate: 1 / samplePeriod,
      hasGroundTruth: true,
      metadata: [
        "format": RecordingFormat.broad.rawValue,
        "dataset": "BROAD (Laidig et al. 2021, doi:10.3390/data6070072, CC BY 4.0)",
        "samplePeriod": "\(samplePeriod)",
        "groundTruthFrame": "reference converted from ENU to NWU",
      ])
    return CSVTableStream(
      cursor: cursor, layout: layout, headerColumnCount: names.count, descriptor: descriptor,
      options: options)
  }
}
