// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Opens recordings of motion-sensor data in any supported ``RecordingFormat`` as sample streams.
///
/// ```swift
/// var stream = try RecordingReader.open(url)            // format detected from the header
/// while let sample = try stream.next() { ... }
/// ```
///
/// Readers convert to OpenCoreMotion's units and signs (specific force in m/s², rad/s, µT, kPa) and
/// check every row: a malformed row, a timestamp going backwards or a NaN/infinite sensor value is
/// an error naming the file and line. So is a glitched timestamp: a row more than a minute ahead of
/// the previous one whose next row goes back before it (continuing the old timeline); a far row
/// whose next row continues after it is a gap in the recording and is kept. With
/// ``Options/invalidRows`` set to ``InvalidRowPolicy/skip``, rows with non-finite values, backwards
/// or glitched timestamps, or the wrong number of cells are left out and counted instead
/// (``RecordingStream/skippedRowCount``); text that does not parse is always an error.
public enum RecordingReader {
  /// What to do with a row that parses but cannot be used.
  public enum InvalidRowPolicy: String, Sendable, CaseIterable {
    /// Stop with an error naming the line (the default).
    case fail
    /// Leave the row out and count it.
    case skip
  }

  /// Reading options.
  public struct Options: Sendable {
    /// What to do with rows holding NaN/infinite sensor values, a backwards timestamp or a glitched
    /// one (far ahead of its neighbours); default ``InvalidRowPolicy/fail``.
    public var invalidRows: InvalidRowPolicy

    /// How to read a CSV of any layout; used with ``RecordingFormat/columns`` (and implies it when
    /// no format is given). Default `nil`.
    public var columnMapping: ColumnMapping?

    /// Creates options; the defaults fail on any invalid row and use no column mapping.
    public init(invalidRows: InvalidRowPolicy = .fail, columnMapping: ColumnMapping? = nil) {
      self.invalidRows = invalidRows
      self.columnMapping = columnMapping
    }
  }

  /// Opens a recording as a stream of samples.
  ///
  /// - Parameters:
  ///   - url: the file (or, for multi-file formats, the folder).
  ///   - format: the format; `nil` (the default) detects it from the header.
  ///   - options: validation options; by default any invalid row is an error.
  /// - Throws: ``RecordingError`` for a missing file, an unknown format or a malformed header. Row
  ///   errors are thrown later, by ``RecordingStream/next()``.
  public static func open(
    _ url: URL, format: RecordingFormat? = nil, options: Options = Options()
  ) throws -> RecordingStream {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw RecordingError(.fileNotFound, file: url.path, "no such file or folder")
    }
    let format =
      try format ?? (options.columnMapping != nil ? .columns : RecordingFormat.detect(url))
    if isDirectory.boolValue && ![.sensorLogger, .phyphox, .euroc, .ximu3].contains(format) {
      throw RecordingError(
        .unknownFormat, file: url.path,
        "\(format.rawValue) recordings are single files, not folders")
    }
    let base: any RecordingRowStream
    switch format {
    case .opencoremotion:
      base = try OpenCoreMotionCSV.open(try CSVBytes(contentsOf: url), url: url, options: options)
    case .broad:
      base = try BROADTrial.open(try CSVBytes(contentsOf: url), url: url, options: options)
    case .sensorLog:
      base = try SensorLogCSV.open(url, options: options)
    case .sensorLogger:
      base = try SensorLoggerExport.open(url, options: options)
    case .deviceMotion:
      base = try DeviceMotionCSV.open(url, options: options)
    case .phyphox:
      base = try PhyphoxExport.open(url, options: options)
    case .euroc:
      base = try EuRoCIMU.open(url, options: options)
    case .ximu3:
      base = try XIMU3Log.open(url, options: options)
    case .columns:
      guard let mapping = options.columnMapping else {
        throw RecordingError(
          .unknownFormat, file: url.path,
          "the columns format needs a column mapping (motionctl: --columns)")
      }
      base = try mapping.open(url, options: options)
    }
    return RecordingStream(url: url, format: format, base: base)
  }

  /// Reads a whole recording into memory.
  ///
  /// - Throws: everything ``open(_:format:options:)`` and ``RecordingStream/next()`` throw.
  public static func readSamples(
    _ url: URL, format: RecordingFormat? = nil, options: Options = Options()
  ) throws -> [MotionSample] {
    var stream = try open(url, format: format, options: options)
    var samples: [MotionSample] = []
    if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int {
      // Rows of single files take 100–150 bytes (a folder's or archive's size is only a hint); a
      // rough guess saves the first reallocations. Capped at 100,000 samples (about 20 MB): a
      // file's size is the outside world's to choose (a sparse file of a terabyte), and growth by
      // doubling costs little beyond that.
      samples.reserveCapacity(Swift.min(size / 100, 100_000))
    }
    while let sample = try stream.next() { samples.append(sample) }
    return samples
  }
}
