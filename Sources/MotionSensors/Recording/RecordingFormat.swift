// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The recording formats ``RecordingReader`` understands; the raw value is the name used on the
/// command line (`--format broad`).
public enum RecordingFormat: String, CaseIterable, Sendable {
  /// OpenCoreMotion's own CSV (see ``OpenCoreMotionCSV`` and ``RecordingWriter``): self-describing
  /// `#` header, SI units, optional ground truth, lossless.
  case opencoremotion
  /// A BROAD benchmark trial (Laidig et al. 2021): 286 Hz IMU with an optical reference attitude,
  /// delivered as ``GroundTruth/earthFromSensor`` converted from ENU to NWU (see ``BROADTrial``).
  case broad
  /// SensorLog (iOS) CSV, one wide row per tick: each sensor replayed on its own timestamps
  /// (seconds since boot), the accelerometer converted from g with Apple's sign to specific force;
  /// Apple's fused device motion is kept as ``GroundTruth`` (an estimate, not measured truth).
  case sensorLog = "sensorlog"
  /// Sensor Logger (iOS/Android) export: zip or folder of per-sensor CSVs plus `Metadata.csv`;
  /// the raw (uncalibrated or total) files are replayed, iOS's accelerometer converted from g with
  /// Apple's sign (without a platform in the metadata, an `AccelerometerUncalibrated.csv` reading
  /// about 1 is taken for iOS's g); times are UTC epoch seconds. One table of an export alone is
  /// an error that asks for the export.
  case sensorLogger = "sensorlogger"
  /// phyphox CSV export: zip or folder with `meta/time.csv`, or one exported table; times are the
  /// experiment time, the wall-clock start is in the metadata.
  case phyphox
  /// EuRoC MAV / TUM-VI `imu0/data.csv` (file or dataset folder); integer-nanosecond times.
  case euroc
  /// x-io Technologies x-IMU3 log folder/zip (`Inertial.csv`, `Magnetometer.csv`) or a CSV with the
  /// same column names (the Fusion library's example data); deg/s and g converted.
  case ximu3
  /// Core Motion device motion as a CSV of its properties (`gravity.x`, `rotationRate.x`,
  /// `userAcceleration.x`, …), such as MotionSense's `A_DeviceMotion_data` files: the
  /// accelerometer is `gravity + userAcceleration` (g, Apple's sign), the gyroscope the
  /// bias-corrected rotation rate, Apple's split kept as ``GroundTruth`` (see
  /// ``DeviceMotionCSV``).
  case deviceMotion = "devicemotion"
  /// Any CSV read through a ``ColumnMapping`` (``RecordingReader/Options/columnMapping``); never
  /// detected automatically.
  case columns

  /// A one-line summary for listings and error messages.
  public var summary: String {
    switch self {
    case .opencoremotion: return "OpenCoreMotion CSV (first line \"# OpenCoreMotion CSV\")"
    case .broad: return "BROAD trial CSV (t,gyr_x..,acc_x..,mag_x..,ref_qw..,movement)"
    case .sensorLog:
      return
        "SensorLog iOS CSV (loggingTime(txt),accelerometerAccelerationX(G),...), or a zip of one"
    case .sensorLogger:
      return
        "Sensor Logger export: zip or folder with Metadata.csv and time,seconds_elapsed,z,y,x CSVs"
    case .phyphox:
      return "phyphox CSV export: zip or folder with meta/time.csv, or a \"Time (s)\",... table"
    case .euroc:
      return "EuRoC/TUM-VI imu0/data.csv (#timestamp [ns],w_RS_S_x,...) or its dataset folder"
    case .ximu3:
      return
        "x-io x-IMU3 log (Inertial.csv, Timestamp (us),Gyroscope X (deg/s),...) or Fusion-style CSV"
    case .deviceMotion:
      return
        "Core Motion device-motion CSV (gravity.x,...,rotationRate.x,...,userAcceleration.x,...; "
        + "MotionSense's rows at 50 Hz)"
    case .columns:
      return "any CSV with a column mapping (t=time,ax=...;units=...), never auto-detected"
    }
  }

  /// A list of every supported format, one per line, for error messages.
  static var supportedList: String {
    allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n")
  }

  /// Recognises the format of a file, folder or zip archive from its header lines and file names.
  ///
  /// ``columns`` is never detected: it needs a mapping.
  ///
  /// - Throws: ``RecordingError`` `.fileNotFound` when nothing is at `url`, `.unknownFormat` (listing
  ///   the supported formats) when nothing matches.
  public static func detect(_ url: URL) throws -> RecordingFormat {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw RecordingError(.fileNotFound, file: url.path, "no such file or folder")
    }
    // What the guess was made from, for the error: a folder given by mistake (an empty path
    // names the working directory) has no header to blame.
    let lookedAt: String
    if isDirectory.boolValue {
      if EuRoCIMU.dataFile(in: url) != nil { return .euroc }
      if let format = try detect(container: RecordingContainer(url)) { return format }
      lookedAt = "a folder, and the names and headers of its files match no recording's"
    } else if RecordingContainer.isZipArchive(url) {
      if let format = try detect(container: RecordingContainer(url)) { return format }
      lookedAt = "a zip archive, and the names and headers of its files match no recording's"
    } else {
      let head = try firstLines(of: url, count: 2)
      if let format = detect(firstLines: head) { return format }
      lookedAt = "a file whose header matches no format"
    }
    throw RecordingError(
      .unknownFormat, file: url.path,
      "cannot tell the recording format: \(lookedAt); pass a format explicitly (or a column "
        + "mapping). Supported formats:\n" + supportedList)
  }

  /// The format suggested by a file's first lines, if any.
  static func detect(firstLines lines: [String]) -> RecordingFormat? {
    guard let first = lines.first else { return nil }
    if first.hasPrefix(OpenCoreMotionCSV.magic) { return .opencoremotion }
    if BROADTrial.matches(headerLine: first) { return .broad }
    if EuRoCIMU.matches(headerLine: first) { return .euroc }
    if SensorLogCSV.matches(headerLine: first) { return .sensorLog }
    if XIMU3Log.matches(headerLine: first) { return .ximu3 }
    if PhyphoxExport.matches(headerLine: first) { return .phyphox }
    if SensorLoggerExport.matches(headerLine: first) { return .sensorLogger }
    if DeviceMotionCSV.matches(headerLine: first) { return .deviceMotion }
    return nil
  }

  /// The format of a folder or archive, if any.
  static func detect(container: RecordingContainer) throws -> RecordingFormat? {
    if SensorLoggerExport.matches(container) { return .sensorLogger }
    if container.path(named: "Inertial.csv") != nil { return .ximu3 }
    if PhyphoxExport.matches(container) { return .phyphox }
    let csvs = container.paths.filter { $0.lowercased().hasSuffix(".csv") }
    // SensorLog's own zip holds one log per session (and a Watch's): which one is meant, its
    // reader asks when there are several.
    if !csvs.isEmpty,
      csvs.allSatisfy({
        (try? container.firstLine($0)).map(SensorLogCSV.matches(headerLine:)) ?? false
      })
    {
      return .sensorLog
    }
    if container.paths.contains(where: { $0.lowercased().hasSuffix("imu0/data.csv") }) {
      return .euroc
    }
    return nil
  }

  /// Reads up to `count` lines from the start of a file without loading all of it.
  ///
  /// - Throws: ``RecordingError`` when the file is missing, unreadable or not a regular file (a
  ///   FIFO or a pipe is refused rather than waited on).
  static func firstLines(of url: URL, count: Int) throws -> [String] {
    let data = try RegularFile.readPrefix(url.path, count: 16_384)
    var text = String(decoding: data, as: UTF8.self)
    if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
    return text.split(separator: "\n", maxSplits: count, omittingEmptySubsequences: false)
      .prefix(count)
      .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
  }
}
