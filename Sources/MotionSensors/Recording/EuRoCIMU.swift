// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Reads the IMU file of the EuRoC MAV and TUM-VI datasets (ASL format), `mav0/imu0/data.csv`:
/// `#timestamp [ns],w_RS_S_x [rad s^-1],…,a_RS_S_x [m s^-2],…` (gyroscope first, then
/// accelerometer).
///
/// Timestamps are integer nanoseconds (parsed exactly, converted to seconds); the accelerometer is
/// specific force in m/s² and the gyroscope rad/s, so no conversion is needed. The URL may be the
/// CSV itself, an `imu0` folder, a `mav0` folder or a sequence folder; a `sensor.yaml` beside the
/// CSV supplies the nominal rate (`rate_hz`).
enum EuRoCIMU {
  /// Whether a header line is an ASL IMU header.
  static func matches(headerLine: String) -> Bool {
    let lower = headerLine.lowercased()
    return lower.hasPrefix("#timestamp") && lower.contains("w_rs_s_x") && lower.contains("a_rs_s_x")
  }

  /// The IMU CSV inside a folder, if there is one.
  static func dataFile(in folder: URL) -> URL? {
    for relative in ["data.csv", "imu0/data.csv", "mav0/imu0/data.csv"] {
      let url = folder.appendingPathComponent(relative)
      if FileManager.default.fileExists(atPath: url.path),
        let line = try? RecordingFormat.firstLines(of: url, count: 1).first,
        matches(headerLine: line)
      {
        return url
      }
    }
    return nil
  }

  static func open(_ url: URL, options: RecordingReader.Options) throws -> CSVTableStream {
    var isDirectory: ObjCBool = false
    _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
    let file: URL
    if isDirectory.boolValue {
      guard let found = dataFile(in: url) else {
        throw RecordingError(
          .fileNotFound, file: url.path, "no imu0/data.csv with an ASL header in this folder")
      }
      file = found
    } else {
      file = url
    }
    let bytes = try CSVBytes(contentsOf: file)
    var cursor = CSVCursor(bytes)
    let names = try CSVTableStream.readHeader(&cursor)
    // Column names carry units in brackets: match on the part before the first space.
    let keys = names.map { name -> String in
      var key = ColumnIndex.normalize(name)
      if key.hasPrefix("#") { key.removeFirst() }
      return String(key.split(separator: " ").first ?? "")
    }
    let index = ColumnIndex(keys)
    guard let time = index("timestamp"),
      let gyroscope = index.vector("w_rs_s_x", "w_rs_s_y", "w_rs_s_z"),
      let accelerometer = index.vector("a_rs_s_x", "a_rs_s_y", "a_rs_s_z")
    else {
      throw RecordingError(
        .malformedHeader, file: bytes.fileName, line: 1,
        "expected #timestamp [ns], w_RS_S_x..z and a_RS_S_x..z columns")
    }
    var layout = ColumnLayout(time: time, columnNames: names)
    layout.timeEncoding = .integer(unitsPerSecond: 1_000_000_000)
    layout.gyroscope = .init(columns: gyroscope)
    layout.accelerometer = .init(columns: accelerometer)
    let descriptor = StreamDescriptor(
      name: file.lastPathComponent, sensors: layout.sensors,
      nominalSampleRate: try rate(fromYAMLBeside: file),
      metadata: [
        "format": RecordingFormat.euroc.rawValue, "clock": "seconds (from integer nanoseconds)",
      ])
    return CSVTableStream(
      cursor: cursor, layout: layout, headerColumnCount: names.count, descriptor: descriptor,
      options: options
    )
  }

  /// `rate_hz` from `sensor.yaml` in the same folder (a plain `key: value` line; no YAML parser is
  /// needed for it); `nil` when there is no such file or line.
  ///
  /// - Throws: ``RecordingError`` when the file is there but is not a regular file (a FIFO is not
  ///   waited on), cannot be read, or is larger than ``RecordingContainer/maximumMetadataSize``
  ///   (a real one is under 1 KiB; it used to be read whole, whatever its size).
  static func rate(fromYAMLBeside file: URL) throws -> Double? {
    let yaml = file.deletingLastPathComponent().appendingPathComponent("sensor.yaml")
    let limit = RecordingContainer.maximumMetadataSize
    let data: Data
    do {
      data = try RegularFile.readPrefix(yaml.path, count: limit + 1)
    } catch let error as RecordingError where error.kind == .fileNotFound {
      return nil
    }
    guard data.count <= limit else {
      throw RecordingError(
        .unreadable, file: yaml.path,
        "is larger than \(limit >> 20) MiB, the most a metadata file may be")
    }
    let text = String(decoding: data, as: UTF8.self)
    for line in text.split(whereSeparator: \.isNewline) {
      let parts = line.split(separator: ":", maxSplits: 1)
      if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == "rate_hz" {
        let value = parts[1].split(separator: "#").first?.trimmingCharacters(in: .whitespaces) ?? ""
        // "inf", "nan" and rates beyond 1 MHz are not rates a recording can have.
        if let rate = Double(value), rate > 0, rate <= 1e6 { return rate }
      }
    }
    return nil
  }
}
