// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the bytes of a text table come from: an open file read at explicit offsets, or bytes
/// already in memory (an inflated archive member, a test fixture).
///
/// Reads take an offset (`pread`), so any number of ``CSVBytes`` windows can read the same source
/// at different places without sharing a file position (SensorLog's tables are one file read once
/// per sensor group).
final class CSVByteSource {
  private enum Storage {
    case file(descriptor: Int32)
    case memory(Data)
  }

  private let storage: Storage
  /// The file name used in error messages.
  let fileName: String
  /// The size when it is known up front (bytes in memory, or the file's size when opened); only a
  /// hint for sizing the first window: reading stops at the real end of the file.
  let sizeHint: Int

  /// Opens a file for reading; missing files, files that are not regular (a FIFO would block the
  /// open forever) and open errors become ``RecordingError``s.
  init(contentsOf url: URL, displayName: String? = nil) throws {
    let name = displayName ?? url.path
    let (descriptor, size) = try RegularFile.openForReading(url.path, displayName: name)
    storage = .file(descriptor: descriptor)
    fileName = name
    sizeHint = size
  }

  /// Reads an open file descriptor, which it owns from now on (closes it when done).
  init(ownedDescriptor descriptor: Int32, fileName: String, size: Int) {
    storage = .file(descriptor: descriptor)
    self.fileName = fileName
    sizeHint = size
  }

  /// Bytes already in memory; they are read in place, not copied whole.
  init(data: Data, fileName: String) {
    storage = .memory(data)
    self.fileName = fileName
    sizeHint = data.count
  }

  deinit {
    if case .file(let descriptor) = storage { close(descriptor) }
  }

  /// Copies up to `count` bytes starting at `offset` into `buffer`; returns how many were copied,
  /// 0 at the end.
  func read(at offset: Int, into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
    precondition(offset >= 0 && count >= 0)
    switch storage {
    case .memory(let data):
      guard offset < data.count else { return 0 }
      let n = Swift.min(count, data.count - offset)
      data.withUnsafeBytes { raw in
        (buffer).update(
          from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, count: n)
      }
      return n
    case .file(let descriptor):
      while true {
        let n = pread(descriptor, buffer, count, off_t(offset))
        if n >= 0 { return n }
        if errno == EINTR { continue }
        throw RecordingError(
          .unreadable, file: fileName, "cannot read the file (\(String(cString: strerror(errno))))")
      }
    }
  }
}
