// SPDX-License-Identifier: Apache-2.0

/// Walks a ``CSVBytes`` buffer row by row, keeping the line number of the current row.
struct CSVCursor {
  let bytes: CSVBytes
  /// The cell separator (`,` by default; `;` or tab in some exports).
  var separator: UInt8
  /// The byte offset of the next unread line.
  private(set) var position: Int
  /// The 1-based line number of the row last returned by ``nextRow(into:)`` (0 before the first).
  private(set) var lineNumber = 0
  /// The line number of the next unread line.
  private var nextLineNumber = 1

  init(_ bytes: CSVBytes, separator: UInt8 = UInt8(ascii: ",")) {
    self.bytes = bytes
    self.separator = separator
    self.position = bytes.byteOrderMarkLength
  }

  /// Whether every line has been read.
  var isAtEnd: Bool { position >= bytes.count }

  /// The next line's raw text without consuming it (for header sniffing), or `nil` at the end.
  func peekLine() -> String? {
    guard position < bytes.count else { return nil }
    var end = position
    while end < bytes.count, bytes.base[end] != 0x0A { end += 1 }
    var field = CSVField(start: position, end: end)
    if field.end > field.start, bytes.base[field.end - 1] == 0x0D { field.end -= 1 }
    return String(
      decoding: UnsafeBufferPointer(start: bytes.base + field.start, count: field.end - field.start),
      as: UTF8.self)
  }

  /// Consumes one whole line and returns its text (for comment lines).
  mutating func nextLine() -> String? {
    guard let line = peekLine() else { return nil }
    var end = position
    while end < bytes.count, bytes.base[end] != 0x0A { end += 1 }
    position = Swift.min(end + 1, bytes.count)
    lineNumber = nextLineNumber
    nextLineNumber += 1
    return line
  }

  /// Splits the next non-blank line into cells; returns `false` at the end of the file.
  ///
  /// Quoted cells (`"a,b"`, with `""` for a quote) may contain separators but not line breaks.
  mutating func nextRow(into fields: inout [CSVField]) -> Bool {
    let p = bytes.base
    let n = bytes.count
    let separator = self.separator
    while position < n {
      fields.removeAll(keepingCapacity: true)
      var i = position
      var fieldStart = i
      lineNumber = nextLineNumber
      nextLineNumber += 1
      while true {
        if i >= n {
          appendField(&fields, fieldStart, i)
          break
        }
        let c = p[i]
        if c == separator {
          fields.append(CSVField(start: fieldStart, end: i))
          i += 1
          fieldStart = i
        } else if c == 0x0A {
          appendField(&fields, fieldStart, i)
          i += 1
          break
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
            if p[i] == 0x0A { break }
            i += 1
          }
          if i < n && p[i] == UInt8(ascii: "\"") { i += 1 }
        } else {
          i += 1
        }
      }
      position = i
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
