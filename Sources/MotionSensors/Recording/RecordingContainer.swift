// SPDX-License-Identifier: Apache-2.0

import Foundation
import ZIPFoundation

/// The files of a multi-file recording, in a folder or a zip archive, found by file name.
///
/// Exports put their CSVs either at the top or inside one sub-folder (a zipped folder), so files
/// are matched by their last path component, case-insensitively, searching at most three levels
/// deep.
struct RecordingContainer {
  /// The folder or archive.
  let url: URL
  private let storage: Storage
  /// Relative paths of the regular files, sorted.
  let paths: [String]

  private enum Storage {
    case folder
    case archive(Archive)
  }

  /// Whether `url` names a zip archive (by its signature, not its extension).
  static func isZipArchive(_ url: URL) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
    defer { try? handle.close() }
    let signature = (try? handle.read(upToCount: 4)) ?? Data()
    return signature == Data([0x50, 0x4B, 0x03, 0x04])
  }

  /// Whether `url` is a single file to read as it is: neither a folder nor a zip archive (a missing
  /// path counts as a file, so that reading it reports it missing).
  static func isPlainFile(_ url: URL) -> Bool {
    var isDirectory: ObjCBool = false
    _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
    return !isDirectory.boolValue && !isZipArchive(url)
  }

  /// Opens a folder or a zip archive.
  init(_ url: URL) throws {
    self.url = url
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw RecordingError(.fileNotFound, file: url.path, "no such file or folder")
    }
    if isDirectory.boolValue {
      storage = .folder
      var found: [String] = []
      let base = url.standardizedFileURL.path
      if let enumerator = FileManager.default.enumerator(atPath: base) {
        while let relative = enumerator.nextObject() as? String {
          if relative.split(separator: "/").count > 3 {
            enumerator.skipDescendants()
            continue
          }
          var sub: ObjCBool = false
          if FileManager.default.fileExists(atPath: base + "/" + relative, isDirectory: &sub),
            !sub.boolValue
          {
            found.append(relative)
          }
        }
      }
      paths = found.sorted()
    } else {
      let archive: Archive
      do {
        archive = try Archive(url: url, accessMode: .read)
      } catch {
        throw RecordingError(.unreadable, file: url.path, "not a readable zip archive (\(error))")
      }
      storage = .archive(archive)
      paths = archive.filter { $0.type == .file }.map(\.path)
        .filter { !$0.hasPrefix("__MACOSX/") && $0.split(separator: "/").count <= 4 }.sorted()
    }
  }

  /// The relative path of the first file called `name` (case-insensitive), shallowest first.
  func path(named name: String, under folder: String? = nil) -> String? {
    let wanted = name.lowercased()
    let candidates = paths.filter { path in
      let components = path.lowercased().split(separator: "/")
      guard components.last.map(String.init) == wanted else { return false }
      if let folder { return components.dropLast().last.map(String.init) == folder.lowercased() }
      return true
    }
    return candidates.min { $0.split(separator: "/").count < $1.split(separator: "/").count }
  }

  /// A name for messages: `archive.zip/Accelerometer.csv` or the file's path.
  func displayName(_ path: String) -> String {
    url.path + "/" + path
  }

  /// The size of a file in bytes.
  func size(_ path: String) -> Int {
    switch storage {
    case .folder:
      let attributes = try? FileManager.default.attributesOfItem(
        atPath: url.appendingPathComponent(path).path)
      return (attributes?[.size] as? Int) ?? 0
    case .archive(let archive):
      // The size comes from the archive's (zip64) header: clamp instead of converting unchecked.
      return archive[path].map { Int(clamping: UInt64($0.uncompressedSize)) } ?? 0
    }
  }

  /// The most bytes one archive member may inflate to (512 MiB): a recording member larger than
  /// that does not fit the boards we target, and a zip bomb stops here.
  static let maximumInflatedSize = 512 << 20
  /// The highest compression ratio accepted once a member has inflated past 1 MiB. Real CSV exports
  /// compress about 3–10:1; a zip bomb compresses about 1000:1.
  static let maximumCompressionRatio = 200

  /// Opens one file for reading in windows. An archive member is inflated first, within the caps
  /// above, into an unnamed temporary file (removed as soon as it is created, so nothing is left
  /// behind even after a crash), and then read in windows like a plain file: memory stays at one
  /// window whatever the member's size.
  func bytes(_ path: String) throws -> CSVBytes {
    switch storage {
    case .folder:
      return try CSVBytes(
        contentsOf: url.appendingPathComponent(path), displayName: displayName(path))
    case .archive(let archive):
      guard let entry = archive[path] else {
        throw RecordingError(.fileNotFound, file: displayName(path), "no such file in the archive")
      }
      // The declared sizes are untrusted: cap what inflation actually produces by size and by
      // ratio to the compressed size.
      let compressed = Int(clamping: UInt64(entry.compressedSize))
      let limit = Swift.min(
        Self.maximumInflatedSize,
        Swift.max(
          1 << 20,
          compressed.multipliedReportingOverflow(by: Self.maximumCompressionRatio).overflow
            ? Int.max : compressed * Self.maximumCompressionRatio))
      let file = try InflatedMember(displayName: displayName(path))
      do {
        _ = try archive.extract(entry, skipCRC32: false) { chunk in
          guard chunk.count <= limit - file.size else { throw InflationLimitExceeded() }
          try file.append(chunk)
        }
      } catch is InflationLimitExceeded {
        throw RecordingError(
          .unreadable, file: displayName(path),
          "inflates to more than \(limit) bytes (from \(compressed) compressed): refused as a likely zip bomb"
        )
      } catch let error as RecordingError {
        throw error
      } catch {
        throw RecordingError(
          .unreadable, file: displayName(path), "cannot extract from the archive (\(error))")
      }
      return try CSVBytes(source: file.takeSource())
    }
  }

  /// The first line of a file, for format detection (empty for an empty file).
  func firstLine(_ path: String) throws -> String {
    try self.bytes(path).firstLine()
  }
}

/// Thrown from the extraction consumer to stop inflating a member past its cap.
private struct InflationLimitExceeded: Error {}

/// An archive member being inflated into an unnamed temporary file (mode 0600: motion data is
/// personal; unlinked at once, so it disappears with its descriptor).
private final class InflatedMember {
  private var descriptor: Int32
  private let displayName: String
  /// Bytes written so far.
  private(set) var size = 0

  init(displayName: String) throws {
    self.displayName = displayName
    guard let descriptor = openUnnamedTemporaryFile(prefix: "opencoremotion-member") else {
      throw RecordingError(
        .unreadable, file: displayName,
        "cannot create a temporary file to inflate it into (\(String(cString: strerror(errno))))")
    }
    self.descriptor = descriptor
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
  }

  /// Appends `chunk`; a full disk or another write error is a ``RecordingError``.
  func append(_ chunk: Data) throws {
    try chunk.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
      var offset = 0
      while offset < raw.count {
        let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          throw RecordingError(
            .unreadable, file: displayName,
            "cannot inflate it into a temporary file (\(String(cString: strerror(errno))))")
        }
        offset += written
      }
    }
    size += chunk.count
  }

  /// The inflated bytes for reading; the descriptor now belongs to the returned source.
  func takeSource() -> CSVByteSource {
    defer { descriptor = -1 }
    return CSVByteSource(ownedDescriptor: descriptor, fileName: displayName, size: size)
  }
}
