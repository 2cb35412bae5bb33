// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The bytes of a zip archive of stored (uncompressed) members, written field by field.
///
/// ZIPFoundation rewrites the central directory at every added entry, so an archive of thousands
/// of members takes it a long time; writing the bytes directly is quick, and lets a test damage a
/// chosen field (a checksum, a flag, an offset) at a known position.
struct StoredZipArchive {
  /// The archive's bytes.
  var data = Data()
  /// Where each member's data starts in ``data``.
  private(set) var dataOffsets: [Int] = []
  /// Where each member's central directory record starts in ``data``.
  private(set) var directoryOffsets: [Int] = []
  /// Where the end-of-central-directory record starts in ``data``.
  private(set) var endRecordOffset = 0

  /// An archive holding `members` (path and text) in order.
  init(_ members: [(String, String)]) {
    var locals: [Int] = []
    var checksums: [UInt32] = []
    for (name, text) in members {
      let bytes = Data(text.utf8)
      let checksum = Self.crc32(bytes)
      locals.append(data.count)
      checksums.append(checksum)
      append32(0x0403_4B50)
      append16(20)  // version needed
      append16(0)  // flags
      append16(0)  // stored
      append16(0)  // time
      append16(0x21)  // date: 1980-01-01
      append32(checksum)
      append32(UInt32(bytes.count))
      append32(UInt32(bytes.count))
      append16(UInt16(name.utf8.count))
      append16(0)  // extra
      data.append(contentsOf: name.utf8)
      dataOffsets.append(data.count)
      data.append(bytes)
    }
    let directoryStart = data.count
    for (index, (name, text)) in members.enumerated() {
      let size = UInt32(text.utf8.count)
      directoryOffsets.append(data.count)
      append32(0x0201_4B50)
      append16(0x0314)  // made by Unix, version 2.0
      append16(20)
      append16(0)  // flags
      append16(0)  // stored
      append16(0)
      append16(0x21)
      append32(checksums[index])
      append32(size)
      append32(size)
      append16(UInt16(name.utf8.count))
      append16(0)  // extra
      append16(0)  // comment
      append16(0)  // disk
      append16(0)  // internal attributes
      append32(0o100644 << 16)  // a regular file
      append32(UInt32(locals[index]))
      data.append(contentsOf: name.utf8)
    }
    endRecordOffset = data.count
    append32(0x0605_4B50)
    append16(0)
    append16(0)
    append16(UInt16(members.count))
    append16(UInt16(members.count))
    append32(UInt32(endRecordOffset - directoryStart))
    append32(UInt32(directoryStart))
    append16(0)
  }

  /// Overwrites four bytes at `offset`, little-endian.
  mutating func put32(_ value: UInt32, at offset: Int) {
    for i in 0..<4 { data[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
  }

  /// Writes the archive to `url`.
  func write(to url: URL) throws {
    try data.write(to: url)
  }

  private mutating func append16(_ value: UInt16) {
    data.append(UInt8(truncatingIfNeeded: value))
    data.append(UInt8(truncatingIfNeeded: value >> 8))
  }

  private mutating func append32(_ value: UInt32) {
    append16(UInt16(truncatingIfNeeded: value))
    append16(UInt16(truncatingIfNeeded: value >> 16))
  }

  /// The zip (ISO 3309) CRC-32 of `bytes`.
  static func crc32(_ bytes: Data) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}
