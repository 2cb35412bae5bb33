// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Walks a file row by row through a ``CSVBytes`` window, keeping the line number of the current
/// row.
///
/// Before a line is split, all of it is in the window: when the window ends inside the line, the
/// bytes read so far move to the window's start and more are read after them. Copies of a cursor
/// read on their own (the shared window is copied before it is refilled).
package struct CSVCursor {
  /// The window the current row's ``CSVField``s point into.
  package private(set) var bytes: CSVBytes
  /// The cell separator (`,` by default; `;` or tab in some exports).
  var separator: UInt8
  /// The offset in ``bytes`` of the next unread line.
  private(set) var position: Int
  /// The 1-based line number of the row last returned by ``nextRow(into:)`` (0 before the first).
  package private(set) var lineNumber = 0
  /// The line number of the next unread line.
  private var nextLineNumber = 1

  /// A cursor at the start of the file; `bytes` is used as it is when it is the file's first
  /// window, otherwise the file is read again from its start.
  package init(_ bytes: CSVBytes, separator: UInt8 = UInt8(ascii: ",")) {
    if bytes.start == 0 {
      self.bytes = bytes
    } else {
      // Reading the start of the file again: a failure shows as an empty table, which every caller
      // reports (a header is always expected); the original window read the same place before.
      self.bytes =
        (try? CSVBytes(source: bytes.source, windowSize: bytes.windowSize))
        ?? CSVBytes(data: .init(), fileName: bytes.fileName)
    }
    self.separator = separator
    self.position = self.bytes.byteOrderMarkLength
  }

  /// The most cells a row may have (4096). Each cell costs a ``CSVField`` (16 bytes), and header
  /// cells a `String` and an index entry besides, so a 16 MiB line of separators used to take
  /// 300–600 MB; the widest real recording (SensorLog, about 80 columns) is far below this.
  package static let maximumCellCount = 4096

  /// How far into the file reading has come: the offset of the next unread line. Readers of
  /// metadata compare it with their size limit.
  package var offset: Int { bytes.start + position }

  /// Whether every line has been read.
  var isAtEnd: Bool { position >= bytes.count && bytes.isComplete }

  /// Makes the whole next line available in the window and returns the offset of its end (its line
  /// feed, or the end of the file); `nil` when there is no next line.
  @inline(__always)
  private mutating func loadLine() throws -> Int? {
    var scanned = 0
    while true {
      let from = position + scanned
      let available = bytes.count - from
      if available > 0, let found = memchr(bytes.base + from, 0x0A, available) {
        return bytes.base.distance(to: found.assumingMemoryBound(to: UInt8.self))
      }
      if bytes.isComplete { return position < bytes.count ? bytes.count : nil }
      scanned = bytes.count - position
      try refill()
    }
  }

  /// Moves the unread bytes to the window's start and reads more after them.
  private mutating func refill() throws {
    if !isKnownUniquelyReferenced(&bytes) {
      bytes = bytes.copy(from: position)
    } else {
      try bytes.refill(keepingFrom: position, lineNumber: nextLineNumber)
      position = 0
      return
    }
    position = 0
    try bytes.refill(keepingFrom: 0, lineNumber: nextLineNumber)
  }

  /// The next line's raw text without consuming it (for header sniffing), or `nil` at the end.
  mutating func peekLine() throws -> String? {
    guard let end = try loadLine() else { return nil }
    var lineEnd = end
    if lineEnd > position, bytes.base[lineEnd - 1] == 0x0D { lineEnd -= 1 }
    return String(
      decoding: UnsafeBufferPointer(start: bytes.base + position, count: lineEnd - position),
      as: UTF8.self)
  }

  /// Consumes one whole line and returns its text (for comment lines).
  mutating func nextLine() throws -> String? {
    guard let line = try peekLine(), let end = try loadLine() else { return nil }
    position = Swift.min(end + 1, bytes.count)
    lineNumber = nextLineNumber
    nextLineNumber += 1
    return line
  }

  /// Splits the next non-blank line into cells; returns `false` at the end of the file.
  ///
  /// Quoted cells (`"a,b"`, with `""` for a quote) may contain separators but not line breaks.
  ///
  /// - Throws: ``RecordingError`` when the file cannot be read, a line is longer than
  ///   ``CSVBytes/maximumLineLength`` or has more than ``maximumCellCount`` cells.
  package mutating func nextRow(into fields: inout [CSVField]) throws -> Bool {
    let separator = self.separator
    while let n = try loadLine() {
      let p = bytes.base
      fields.removeAll(keepingCapacity: true)
      var i = position
      var fieldStart = i
      lineNumber = nextLineNumber
      nextLineNumber += 1
      // `n` is the line feed (or the end of the file): no line break inside [position, n).
      while i < n {
        let c = p[i]
        if c == separator {
          guard fields.count < CSVCursor.maximumCellCount - 1 else {
            throw RecordingError(
              .malformedRow, file: bytes.fileName, line: lineNumber,
              "the line has more than \(CSVCursor.maximumCellCount) cells")
          }
          fields.append(CSVField(start: fieldStart, end: i))
          i += 1
          fieldStart = i
        } else if c == UInt8(ascii: "\"") && i == fieldStart {
          // Skip to the closing quote; a doubled quote is an escaped quote.
          i += 1
          while i < n {
            if p[i] == UInt8(ascii: "\"") {
              if i + 1 < n && p[i + 1] == UInt8(ascii: "\"") {
                i += 2
                continue
              }
              break
            }
            i += 1
          }
          if i < n { i += 1 }
        } else {
          i += 1
        }
      }
      appendField(&fields, fieldStart, n)
      position = Swift.min(n + 1, bytes.count)
      // A blank line (or one holding only a carriage return) is not a row.
      if fields.count == 1 && fields[0].isEmpty { continue }
      return true
    }
    return false
  }

  @inline(__always)
  private func appendField(_ fields: inout [CSVField], _ start: Int, _ end: Int) {
    var e = end
    if e > start && bytes.base[e - 1] == 0x0D { e -= 1 }
    fields.append(CSVField(start: start, end: e))
  }
}
