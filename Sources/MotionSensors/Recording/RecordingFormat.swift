// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The recording formats ``RecordingReader`` understands; the raw value is the name used on the
/// command line (`--format broad`).
public enum RecordingFormat: String, CaseIterable, Sendable {
  /// OpenCoreMotion's own CSV (see ``RecordingWriter``): self-describing `#` header, SI units,
  /// optional ground truth.
  case opencoremotion
  /// A BROAD benchmark trial (Laidig et al. 2021): 286 Hz IMU with optical reference attitude in ENU.
  case broad

  /// A one-line summary for listings and error messages.
  public var summary: String {
    switch self {
    case .opencoremotion: return "OpenCoreMotion CSV (# OpenCoreMotion CSV header)"
    case .broad: return "BROAD trial CSV (t,gyr_x..,acc_x..,mag_x..,ref_qw..,movement)"
    }
  }

  /// A list of every supported format, one per line, for error messages.
  static var supportedList: String {
    allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n")
  }

  /// Recognises the format of a file or folder from its first lines or its contents.
  ///
  /// - Throws: ``RecordingError`` `.fileNotFound` when nothing is at `url`, `.unknownFormat` (listing
  ///   the supported formats) when nothing matches.
  public static func detect(_ url: URL) throws -> RecordingFormat {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw RecordingError(.fileNotFound, file: url.path, "no such file or folder")
    }
    if !isDirectory.boolValue {
      let head = try firstLines(of: url, count: 2)
      if let format = detect(firstLines: head) { return format }
    }
    throw RecordingError(
      .unknownFormat, file: url.path,
      "cannot tell the recording format from the header; pass a format explicitly. Supported formats:\n"
        + supportedList)
  }

  /// The format suggested by a file's first lines, if any.
  static func detect(firstLines lines: [String]) -> RecordingFormat? {
    guard let first = lines.first else { return nil }
    if first.hasPrefix(OpenCoreMotionCSV.magic) { return .opencoremotion }
    if BROADTrial.matches(headerLine: first) { return .broad }
    return nil
  }

  /// Reads up to `count` lines from the start of a file without loading all of it.
  static func firstLines(of url: URL, count: Int) throws -> [String] {
    guard let handle = FileHandle(forReadingAtPath: url.path) else {
      throw RecordingError(.unreadable, file: url.path, "cannot open the file for reading")
    }
    defer { try? handle.close() }
    let data = (try? handle.read(upToCount: 16_384)) ?? Data()
    var text = String(decoding: data, as: UTF8.self)
    if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
    return text.split(separator: "\n", maxSplits: count, omittingEmptySubsequences: false)
      .prefix(count)
      .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
  }
}
