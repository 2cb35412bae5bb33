// SPDX-License-Identifier: Apache-2.0

import Foundation
import ZIPFoundation

/// The files of a multi-file recording, in a folder or a zip archive, found by file name.
///
/// Exports put their CSVs either at the top or inside one sub-folder (a zipped folder), so files
/// are matched by their last path component, case-insensitively, searching at most three levels
/// deep, and at most ``maximumFolderEntryCount`` entries of a folder.
struct RecordingContainer {
  /// The folder or archive.
  let url: URL
  private let storage: Storage
  /// Relative paths of the regular files, sorted.
  let paths: [String]
  /// The paths by their lower-cased last component, each list in the order of ``paths``, so that
  /// ``path(named:under:)`` does not scan every path.
  private let pathsByName: [String: [String]]

  private enum Storage {
    case folder
    /// The archive's file and its file entries by path, indexed once when it is opened:
    /// ZIPFoundation's `archive[path]` walks the central directory from the start (two seeks and
    /// reads per entry), so looking members up through it made reading an archive quadratic in
    /// its member count (6000 members took more than a minute).
    case archive(ArchiveFile, entries: [String: ArchiveMember])
  }

  /// One file of an archive: ZIPFoundation's entry (name, sizes, checksum) and where its data
  /// lies, which ``ZipMember`` reads.
  private struct ArchiveMember {
    let entry: Entry
    let data: ZipMember
  }

  /// The most bytes of a side file read whole for its metadata (phyphox `meta/*.csv`, Sensor
  /// Logger `Metadata.csv`, EuRoC `sensor.yaml`): 1 MiB, a thousand times a real one. The values
  /// are kept in the recording's descriptor, so a larger file is refused instead of filling memory.
  static let maximumMetadataSize = 1 << 20

  /// The most entries an archive may have (10 000). A recording's archive holds a few dozen files;
  /// the index costs about a kilobyte per entry, so a zip of 60 000 empty members took 70 MB.
  static let maximumArchiveEntryCount = 10_000

  /// The most files and folders looked at in a folder, three levels deep (10 000, as for an
  /// archive). A recording's folder holds a few dozen; `replay:/tmp` looked at 77 000 entries of
  /// every sub-folder for over 20 s before saying that the format was unknown.
  static let maximumFolderEntryCount = 10_000

  /// Whether `url` names a zip archive (by its signature, not its extension); `false` for anything
  /// that is not a regular file (a FIFO is not opened, so it cannot block).
  static func isZipArchive(_ url: URL) -> Bool {
    guard let signature = try? RegularFile.readPrefix(url.path, count: 4) else { return false }
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
  ///
  /// - Throws: ``RecordingError`` for a missing path, a path that is neither a folder nor a regular
  ///   file, a folder with more than ``maximumFolderEntryCount`` entries three levels deep, and an
  ///   archive that cannot be read whole: a damaged central directory, an encrypted member, or no
  ///   member at all.
  init(_ url: URL) throws {
    self.url = url
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw RecordingError(.fileNotFound, file: url.path, "no such file or folder")
    }
    var found: [String] = []
    if isDirectory.boolValue {
      storage = .folder
      let base = url.standardizedFileURL.path
      if let enumerator = FileManager.default.enumerator(atPath: base) {
        var examined = 0
        while let relative = enumerator.nextObject() as? String {
          examined += 1
          guard examined <= Self.maximumFolderEntryCount else {
            throw RecordingError(
              .unreadable, file: url.path,
              "holds more than \(Self.maximumFolderEntryCount) files and folders within three "
                + "levels, and a recording's folder has a few dozen: the rest was not looked at. "
                + "Name the recording's own folder or file")
          }
          let depth = relative.split(separator: "/").count
          var sub: ObjCBool = false
          guard FileManager.default.fileExists(atPath: base + "/" + relative, isDirectory: &sub)
          else { continue }
          if sub.boolValue {
            // Files three levels down are the deepest looked for: a folder there is not opened
            // (its entries used to be listed, and counted, one by one).
            if depth >= 3 { enumerator.skipDescendants() }
          } else if depth <= 3 {
            found.append(relative)
          }
        }
      }
    } else {
      let (file, entries, walked) = try Self.openArchive(url)
      storage = .archive(file, entries: entries)
      found = Array(entries.keys)
      if walked == 0 {
        throw RecordingError(.unreadable, file: url.path, "the zip archive holds no files")
      }
    }
    paths = found.sorted()
    var byName: [String: [String]] = [:]
    for path in paths {
      byName[path.lowercased().split(separator: "/").last.map(String.init) ?? "", default: []]
        .append(path)
    }
    pathsByName = byName
  }

  /// Opens an archive and indexes its file entries by path (the first of duplicate paths wins, as
  /// with `archive[path]`); also returns how many entries the walk read.
  private static func openArchive(
    _ url: URL
  ) throws -> (ArchiveFile, [String: ArchiveMember], walked: Int) {
    // Checked regular and kept open while ZIPFoundation opens it: on Linux it opens the same file
    // again through /proc/self/fd, so a FIFO put in its place meanwhile cannot block `fopen`. The
    // members are read from this descriptor later (``ZipMember``), so from the file indexed.
    let file = try ArchiveFile(url.path)
    let descriptor = file.descriptor
    let size = file.size
    let reopened = "/proc/self/fd/\(descriptor)"
    let archiveURL =
      FileManager.default.fileExists(atPath: reopened) ? URL(fileURLWithPath: reopened) : url
    let archive: Archive
    do {
      archive = try Archive(url: archiveURL, accessMode: .read)
    } catch {
      throw RecordingError(.unreadable, file: url.path, "not a readable zip archive (\(error))")
    }
    var entries: [String: (entry: Entry, index: Int)] = [:]
    var walked = 0
    for entry in archive {
      walked += 1
      guard walked <= maximumArchiveEntryCount else {
        throw RecordingError(
          .unreadable, file: url.path,
          "holds more than \(maximumArchiveEntryCount) entries; a recording's archive has a few dozen"
        )
      }
      guard entry.type == .file else { continue }
      let path = entry.path
      guard !path.hasPrefix("__MACOSX/"), path.split(separator: "/").count <= 4,
        entries[path] == nil
      else { continue }
      entries[path] = (entry, walked - 1)
    }
    guard let directory = ZipCentralDirectory(descriptor: descriptor, fileSize: size) else {
      throw RecordingError(
        .unreadable, file: url.path, "not a readable zip archive (no end of central directory)")
    }
    if UInt64(walked) < directory.declaredEntryCount {
      throw RecordingError(
        .unreadable, file: url.path,
        "not a readable zip archive (\(directory.problem(atEntry: walked)); \(walked) of "
          + "\(directory.declaredEntryCount) entries readable)")
    }
    guard let locations = directory.members(count: walked) else {
      throw RecordingError(
        .unreadable, file: url.path, "not a readable zip archive (the central directory is damaged)"
      )
    }
    return (
      file, entries.mapValues { ArchiveMember(entry: $0.entry, data: locations[$0.index]) }, walked
    )
  }

  /// The relative path of the first file called `name` (case-insensitive), shallowest first.
  func path(named name: String, under folder: String? = nil) -> String? {
    let candidates = (pathsByName[name.lowercased()] ?? []).filter { path in
      guard let folder else { return true }
      let components = path.lowercased().split(separator: "/")
      return components.dropLast().last.map(String.init) == folder.lowercased()
    }
    return candidates.min { $0.split(separator: "/").count < $1.split(separator: "/").count }
  }

  /// A name for messages: `archive.zip/Accelerometer.csv` or the file's path.
  func displayName(_ path: String) -> String {
    url.path + "/" + path
  }

  /// The size of a file in bytes (0 when it is missing).
  ///
  /// - Throws: ``RecordingError`` when a folder's file is not a regular file: a FIFO reports size
  ///   0, and would otherwise be passed over silently as an empty file.
  func size(_ path: String) throws -> Int {
    switch storage {
    case .folder:
      return try RegularFile.size(
        url.appendingPathComponent(path).path, displayName: displayName(path))
        ?? 0
    case .archive(_, let entries):
      // The size comes from the archive's (zip64) header: clamp instead of converting unchecked.
      return entries[path].map { Int(clamping: UInt64($0.entry.uncompressedSize)) } ?? 0
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
    case .archive(let archiveFile, let entries):
      guard let member = entries[path] else {
        throw RecordingError(.fileNotFound, file: displayName(path), "no such file in the archive")
      }
      let entry = member.entry
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
        // ZIPFoundation computes the CRC-32 of what it extracts but leaves the comparison to the
        // caller: without it a corrupted member was read as if it were sound.
        let checksum = try archiveFile.extract(member.data, skipCRC32: false) { chunk in
          guard chunk.count <= limit - file.size else { throw InflationLimitExceeded() }
          try file.append(chunk)
        }
        guard checksum == entry.checksum else {
          throw RecordingError(
            .unreadable, file: displayName(path),
            "CRC-32 mismatch (stored \(Self.hex(entry.checksum)), computed \(Self.hex(checksum))): "
              + "the archive is corrupt")
        }
      } catch is InflationLimitExceeded {
        throw RecordingError(
          .unreadable, file: displayName(path),
          "inflates to more than \(limit) bytes (from \(compressed) compressed): refused as a likely zip bomb"
        )
      } catch let error as RecordingError {
        throw error
      } catch let damage as ZipMember.Damage {
        throw RecordingError(
          .unreadable, file: displayName(path), "damaged archive member: \(damage)")
      } catch {
        throw RecordingError(
          .unreadable, file: displayName(path), "cannot extract from the archive (\(error))")
      }
      return try CSVBytes(source: file.takeSource())
    }
  }

  /// A checksum as eight hexadecimal digits.
  private static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }

  /// The longest first line ``firstLine(_:)`` reads from an archive member, bytes: far above any
  /// header a format is detected by.
  static let firstLineLimit = 64 << 10

  /// The first line of a file, for format detection (empty for an empty file).
  ///
  /// An archive member is inflated only until its first line break (at most ``firstLineLimit``
  /// bytes; a longer first line is returned cut there, and matches no format). Detection asks
  /// for the first line of every member of an archive, and inflating each whole (up to 512 MiB
  /// apiece, into a temporary file) to read a header made a crafted archive of many large
  /// members take minutes to be found wanting. The member's checksum is checked when it is read
  /// for real (``bytes(_:)``), not here.
  func firstLine(_ path: String) throws -> String {
    guard case .archive(let archiveFile, let entries) = storage else {
      return try self.bytes(path).firstLine()
    }
    guard let member = entries[path] else {
      throw RecordingError(.fileNotFound, file: displayName(path), "no such file in the archive")
    }
    var prefix = Data()
    do {
      _ = try archiveFile.extract(member.data, skipCRC32: true) { chunk in
        let room = Self.firstLineLimit - prefix.count
        let taken = chunk.prefix(room)
        if let lineBreak = taken.firstIndex(of: 0x0A) {
          prefix.append(taken[taken.startIndex..<lineBreak])
          throw ExtractionEnough()
        }
        prefix.append(taken)
        if prefix.count >= Self.firstLineLimit { throw ExtractionEnough() }
      }
    } catch is ExtractionEnough {
      // The first line is in.
    } catch let damage as ZipMember.Damage {
      throw RecordingError(
        .unreadable, file: displayName(path), "damaged archive member: \(damage)")
    } catch {
      throw RecordingError(
        .unreadable, file: displayName(path), "cannot extract from the archive (\(error))")
    }
    if prefix.last == 0x0D { prefix.removeLast() }
    // A UTF-8 byte-order mark (a spreadsheet's save) is not part of the line, as for a file.
    if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { prefix.removeFirst(3) }
    return String(decoding: prefix, as: UTF8.self)
  }
}

/// An archive's file, open for as long as its container is in use: its members are read from
/// the file that was indexed, whatever is put at its path later.
private final class ArchiveFile {
  let descriptor: Int32
  let size: Int

  init(_ path: String) throws {
    (descriptor, size) = try RegularFile.openForReading(path)
  }

  deinit { close(descriptor) }

  /// Reads `member` (``ZipMember/extract(from:fileSize:skipCRC32:consumer:)``).
  func extract(
    _ member: ZipMember, skipCRC32: Bool, consumer: (Data) throws -> Void
  ) throws
    -> UInt32
  {
    try member.extract(from: descriptor, fileSize: size, skipCRC32: skipCRC32, consumer: consumer)
  }
}

/// Thrown from the extraction consumer to stop inflating a member past its cap.
private struct InflationLimitExceeded: Error {}

/// Thrown from the extraction consumer to stop inflating once enough of the member is in.
private struct ExtractionEnough: Error {}

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
