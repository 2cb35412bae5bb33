// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// The binary form of a `data` frame, for connections that ask for it (`/ws?format=binary`).
///
/// Layout (all integers and numbers little-endian; docs/Dashboard.md, "Binary data frames"):
///
/// | bytes | what |
/// |---|---|
/// | 0–3 | the ASCII magic `OCMD` |
/// | 4–7 | `UInt32`: the length *n* of the header in bytes |
/// | 8 … 8+n−1 | the header: the JSON `data` frame without its row arrays, with `"blocks"`: `[[name, rows, columns], …]` |
/// | … | zero bytes up to the next multiple of 8 from the frame's start |
/// | … | the blocks' rows, in the header's order, each row `columns` IEEE 754 doubles |
///
/// The numbers start 8-byte aligned, so a page can read them in place (`Float64Array`). They are
/// the values themselves: times and readings are not rounded as in the JSON text, and a
/// non-finite value is sent as it is (NaN where the JSON has `null`).
package enum DashboardBinaryFrame {
  /// The first four bytes of every binary data frame.
  package static let magic: [UInt8] = Array("OCMD".utf8)

  /// One stream's rows as they go out: its name in the JSON form, and its width.
  package struct Block {
    package var name: String
    package var rows: [[Double]]
    /// The values per row (the first row's count; every row of a stream has the same).
    package var columns: Int { rows.first?.count ?? 0 }
  }

  /// The streams of `batch` in frame order (the JSON form uses the same order and names).
  package static func blocks(of batch: DashboardBatch) -> [Block] {
    batch.namedRows.map { Block(name: $0.name, rows: $0.rows) }
  }

  /// The rows of `batch` as the frame's number section; made once per frame and shared by
  /// every binary connection. A row shorter than its block's width is padded with NaN, a longer
  /// one cut, so the section always matches the header.
  package static func rowSection(of batch: DashboardBatch) -> ByteBuffer {
    let blocks = blocks(of: batch)
    let count = blocks.reduce(0) { $0 + $1.rows.count * $1.columns }
    var buffer = ByteBufferAllocator().buffer(capacity: count * 8)
    for block in blocks {
      let columns = block.columns
      for row in block.rows {
        for column in 0..<columns {
          let value = column < row.count ? row[column] : .nan
          buffer.writeInteger(value.bitPattern, endianness: .little)
        }
      }
    }
    return buffer
  }

  /// A whole frame: the magic, the header's length, the header (one client's complete JSON
  /// text), padding to an 8-byte boundary, and `rows` (``rowSection(of:)``).
  package static func frame(header: String, rows: ByteBuffer) -> ByteBuffer {
    let headerLength = header.utf8.count
    let padding = (8 - (8 + headerLength) % 8) % 8
    var buffer = ByteBufferAllocator().buffer(
      capacity: 8 + headerLength + padding + rows.readableBytes)
    buffer.writeBytes(magic)
    buffer.writeInteger(UInt32(truncatingIfNeeded: headerLength), endianness: .little)
    buffer.writeString(header)
    buffer.writeRepeatingByte(0, count: padding)
    var rows = rows
    buffer.writeBuffer(&rows)
    return buffer
  }
}
