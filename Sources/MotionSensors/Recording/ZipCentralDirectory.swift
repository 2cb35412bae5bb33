// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a zip archive's end records declare about its central directory, read on our own to tell
/// a damaged archive from a complete one.
///
/// ZIPFoundation's entry iterator stops without an error at the first entry it cannot read (an
/// encrypted member, a local header past the end of the file, a broken central directory), so a
/// damaged archive looks like one with fewer files, often none, and the reader then blamed the
/// format. Comparing the entries walked with the count declared here, and describing the first
/// entry that was not walked, turns that into a clear message. Every read is bounded: the end
/// records are searched in the last 64 KiB, and the walk reads one fixed-size record per entry.
struct ZipCentralDirectory {
  /// The number of entries the end record declares (the zip64 record's when there is one, as
  /// ZIPFoundation does).
  let declaredEntryCount: UInt64
  /// Where the central directory starts.
  let offset: UInt64
  private let descriptor: Int32
  private let fileSize: Int

  /// Reads the end records of the archive open at `descriptor`; `nil` when there are none.
  init?(descriptor: Int32, fileSize: Int) {
    self.descriptor = descriptor
    self.fileSize = fileSize
    let endSize = 22
    let tailSize = Swift.min(fileSize, endSize + 0xFFFF)
    guard tailSize >= endSize,
      let tail = Self.read(descriptor, at: fileSize - tailSize, count: tailSize, fileSize: fileSize)
    else { return nil }
    // The last end-of-central-directory signature, searched backwards like ZIPFoundation does.
    var position = tail.count - endSize
    while position >= 0 && Self.uint32(tail, position) != 0x0605_4B50 { position -= 1 }
    guard position >= 0 else { return nil }
    var count = UInt64(Self.uint16(tail, position + 10))
    var offset = UInt64(Self.uint32(tail, position + 16))
    // A zip64 end record (56 bytes) followed by its locator (20 bytes) just before the end record.
    let end = fileSize - tailSize + position
    if end >= 76,
      let records = Self.read(descriptor, at: end - 76, count: 76, fileSize: fileSize),
      Self.uint32(records, 0) == 0x0606_4B50, Self.uint32(records, 56) == 0x0706_4B50
    {
      count = Self.uint64(records, 32)
      offset = Self.uint64(records, 48)
    }
    declaredEntryCount = count
    self.offset = offset
  }

  /// Why the entry at `index` (0-based) could not be read: the walk of the central directory up to
  /// it, and a look at its flags and local header.
  func problem(atEntry index: Int) -> String {
    var position = offset
    var entry = 0
    while true {
      guard position <= UInt64(Int.max),
        let record = Self.read(descriptor, at: Int(position), count: 46, fileSize: fileSize),
        Self.uint32(record, 0) == 0x0201_4B50
      else {
        return "the central directory is damaged at entry \(entry + 1)"
      }
      let nameLength = Int(Self.uint16(record, 28))
      let extraLength = UInt64(Self.uint16(record, 30))
      let commentLength = UInt64(Self.uint16(record, 32))
      if entry == index {
        // A name running past the end of the file is part of the damage: name the entry by number.
        let name =
          Self.read(
            descriptor, at: Int(position) + 46, count: Swift.min(nameLength, 200),
            fileSize: fileSize
          ).map { RecordingError.quoted(String(decoding: $0, as: UTF8.self)) }
          ?? "number \(entry + 1)"
        if Self.uint16(record, 8) & 1 != 0 {
          return "member \(name) is encrypted; encrypted zip members are not supported"
        }
        let localOffset = Int(Self.uint32(record, 42))
        guard let local = Self.read(descriptor, at: localOffset, count: 30, fileSize: fileSize),
          Self.uint32(local, 0) == 0x0403_4B50
        else {
          return "the local header of member \(name) is missing or damaged"
        }
        return "member \(name) cannot be read"
      }
      position += 46 + UInt64(nameLength) + extraLength + commentLength
      entry += 1
    }
  }

  /// Where the data of each of the first `count` members lies, in central-directory order (the
  /// order ZIPFoundation's entry iterator walks); `nil` when a record cannot be read. Sizes and
  /// the local header's offset come from the zip64 extra field where the record's own are
  /// 0xFFFFFFFF.
  func members(count: Int) -> [ZipMember]? {
    var members: [ZipMember] = []
    var position = offset
    while members.count < count {
      guard position <= UInt64(fileSize),
        let record = Self.read(descriptor, at: Int(position), count: 46, fileSize: fileSize),
        Self.uint32(record, 0) == 0x0201_4B50
      else { return nil }
      let nameLength = Int(Self.uint16(record, 28))
      let extraLength = Int(Self.uint16(record, 30))
      let commentLength = Int(Self.uint16(record, 32))
      var compressedSize = UInt64(Self.uint32(record, 20))
      let uncompressedSize = UInt64(Self.uint32(record, 24))
      var localOffset = UInt64(Self.uint32(record, 42))
      if compressedSize == 0xFFFF_FFFF || uncompressedSize == 0xFFFF_FFFF
        || localOffset == 0xFFFF_FFFF
      {
        guard
          let extra = Self.read(
            descriptor, at: Int(position) + 46 + nameLength, count: extraLength, fileSize: fileSize)
        else { return nil }
        // The zip64 field (0x0001) holds, in this order, only the values marked 0xFFFFFFFF.
        var field = 0
        while field + 4 <= extra.count {
          let id = Self.uint16(extra, field)
          let size = Int(Self.uint16(extra, field + 2))
          guard field + 4 + size <= extra.count else { break }
          if id == 0x0001 {
            var value = field + 4
            func next() -> UInt64? {
              guard value + 8 <= field + 4 + size else { return nil }
              defer { value += 8 }
              return Self.uint64(extra, value)
            }
            if uncompressedSize == 0xFFFF_FFFF { _ = next() }
            if compressedSize == 0xFFFF_FFFF, let size = next() { compressedSize = size }
            if localOffset == 0xFFFF_FFFF, let offset = next() { localOffset = offset }
            break
          }
          field += 4 + size
        }
      }
      members.append(
        ZipMember(
          localHeaderOffset: localOffset, compressedSize: compressedSize,
          method: Self.uint16(record, 10)))
      position += 46 + UInt64(nameLength) + UInt64(extraLength) + UInt64(commentLength)
    }
    return members
  }

  /// `count` bytes at `offset`, or `nil` when they are not all inside the file.
  static func read(_ descriptor: Int32, at offset: Int, count: Int, fileSize: Int) -> Data? {
    guard offset >= 0, count >= 0, offset <= fileSize, count <= fileSize - offset else {
      return nil
    }
    var data = Data(count: count)
    var filled = 0
    while filled < count {
      let n = data.withUnsafeMutableBytes { raw in
        pread(descriptor, raw.baseAddress! + filled, count - filled, off_t(offset + filled))
      }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return nil }
      filled += n
    }
    return data
  }

  static func uint16(_ data: Data, _ at: Int) -> UInt16 {
    let i = data.startIndex + at
    return UInt16(data[i]) | UInt16(data[i + 1]) << 8
  }

  static func uint32(_ data: Data, _ at: Int) -> UInt32 {
    UInt32(uint16(data, at)) | UInt32(uint16(data, at + 2)) << 16
  }

  static func uint64(_ data: Data, _ at: Int) -> UInt64 {
    UInt64(uint32(data, at)) | UInt64(uint32(data, at + 4)) << 32
  }
}
