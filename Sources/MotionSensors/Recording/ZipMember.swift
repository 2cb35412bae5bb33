// SPDX-License-Identifier: Apache-2.0

import Foundation
import ZIPFoundation

/// Where one archive member's data lies and how it is stored, from its central-directory record,
/// and the bounded reading of that data.
///
/// Members are read here rather than through ZIPFoundation's `Archive.extract`. On Linux that
/// inflates with a loop that asks the archive file for more input until the deflate stream says it
/// has ended; a stream that never ends (a crafted member opening a stored block longer than the
/// rest of the file) gets empty reads past the end of the file, and the loop spins at full CPU for
/// good, never calling back, so no cap of ours could stop it (ZIPFoundation issue 389; 0.9.20 is
/// the version available here). Here the input is the member's declared compressed bytes and no
/// more: a stream still open when they are used up is a damaged member, said so at once. A stored
/// member is read for exactly its declared size, which must lie inside the file.
struct ZipMember: Sendable, Equatable {
  /// Where the member's local header starts.
  let localHeaderOffset: UInt64
  /// The declared size of its data in the archive.
  let compressedSize: UInt64
  /// The compression method: 0 stored, 8 deflated (the two ZIPFoundation reads too).
  let method: UInt16

  /// The bytes read and inflated at a time.
  static let chunkSize = 64 << 10

  /// Why a member could not be read; the container turns it into a ``RecordingError``.
  struct Damage: Error, CustomStringConvertible {
    let description: String
  }

  /// Reads the member from the archive open at `descriptor` and hands its (inflated) bytes to
  /// `consumer` chunk by chunk; returns their CRC-32 (0 when `skipCRC32`). What `consumer` throws
  /// stops the reading and is rethrown.
  ///
  /// - Throws: ``Damage`` for a missing local header, data running past the end of the file, a
  ///   deflate stream that does not end within the member's data, or an unknown method; ZIPFoundation's
  ///   `CompressionError` for data that is not deflate.
  func extract(
    from descriptor: Int32, fileSize: Int, skipCRC32: Bool, consumer: (Data) throws -> Void
  ) throws -> UInt32 {
    guard localHeaderOffset <= UInt64(fileSize),
      let header = ZipCentralDirectory.read(
        descriptor, at: Int(localHeaderOffset), count: 30, fileSize: fileSize),
      ZipCentralDirectory.uint32(header, 0) == 0x0403_4B50
    else { throw Damage(description: "its local header is missing or damaged") }
    // The local header's own name and extra lengths place the data (they may differ from the
    // central directory's).
    let dataStart =
      Int(localHeaderOffset) + 30 + Int(ZipCentralDirectory.uint16(header, 26))
      + Int(ZipCentralDirectory.uint16(header, 28))
    guard dataStart <= fileSize, compressedSize <= UInt64(fileSize - dataStart) else {
      throw Damage(
        description: "its data (\(compressedSize) bytes declared) runs past the end of the archive")
    }
    var position = dataStart
    let end = dataStart + Int(compressedSize)
    // The next piece of the member's data, at most `size` bytes; empty once it is all read.
    func nextPiece(_ size: Int) throws -> Data {
      let count = Swift.min(size, end - position)
      guard count > 0 else { return Data() }
      guard
        let piece = ZipCentralDirectory.read(
          descriptor, at: position, count: count, fileSize: fileSize)
      else { throw Damage(description: "its data cannot be read") }
      position += count
      return piece
    }
    switch method {
    case 0:
      var checksum: UInt32 = 0
      while true {
        let piece = try nextPiece(Self.chunkSize)
        if piece.isEmpty { return checksum }
        try consumer(piece)
        if !skipCRC32 { checksum = piece.crc32(checksum: checksum) }
      }
    case 8:
      return try Data.decompress(
        size: Int64(compressedSize), bufferSize: Self.chunkSize, skipCRC32: skipCRC32,
        provider: { _, size in
          // ZIPFoundation asks again for as long as the stream is open; an empty answer would
          // make it spin.
          var piece = try nextPiece(size)
          guard !piece.isEmpty else {
            throw Damage(description: "its deflate stream does not end within its data")
          }
          // Its Linux inflate hands zlib `size` bytes whatever the chunk's length, so the chunk
          // is always that long: the member's last bytes are followed by zeros (where
          // ZIPFoundation's own reader gives the file's next bytes). A stream that ends in its
          // data never reads them; one that does not is cut off at the next request, and what
          // zlib made of the zeros fails the checksum.
          if piece.count < size { piece.append(Data(count: size - piece.count)) }
          return piece
        }, consumer: consumer)
    default:
      throw Damage(
        description: "compression method \(method) is not supported (only stored and deflate)")
    }
  }
}
