// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A window onto a text file: a bounded buffer of its bytes followed by a terminating zero, parsed
/// in place and refilled from the file as a ``CSVCursor`` advances.
///
/// Parsing bytes in one buffer is several times faster than line-by-line `String` handling, and the
/// zero after the last byte lets `strtod` run directly on the buffer. Memory is bounded: the window
/// holds at most ``windowSize`` bytes (1 MiB), however large the file, growing only while one line
/// is longer than that, up to ``maximumLineLength``. Byte offsets (``CSVField``) are relative to
/// the window's start and stay valid until the cursor reads the next line.
///
/// Windows are shared between copies of a cursor and copied on refill when shared (copy on write),
/// so every copy reads the file on its own.
package final class CSVBytes {
  /// The bytes, followed by one zero byte that is not counted in ``count``.
  private(set) var base: UnsafeMutablePointer<UInt8>
  /// The number of bytes in the window.
  private(set) var count: Int
  /// The bytes the window can hold (the zero terminator not included).
  private var capacity: Int
  /// The offset in the file of ``base``'s first byte.
  private(set) var start: Int
  /// Whether the window reaches the end of the file.
  private(set) var isComplete: Bool
  /// Where the bytes come from.
  let source: CSVByteSource
  /// The size of a window when the file is larger.
  let windowSize: Int

  /// The default window: 1 MiB, about ten thousand rows of a typical recording.
  static let defaultWindowSize = 1 << 20
  /// The longest line the window grows to hold (16 MiB); a longer line is an error.
  static let maximumLineLength = 16 << 20

  /// The file name used in error messages.
  package var fileName: String { source.fileName }

  /// Opens a file and reads its first window; missing files and read errors become
  /// ``RecordingError``s.
  package convenience init(
    contentsOf url: URL, displayName: String? = nil, windowSize: Int = defaultWindowSize
  ) throws {
    try self.init(
      source: CSVByteSource(contentsOf: url, displayName: displayName), windowSize: windowSize)
  }

  /// Bytes already in memory (an archive member, a test fixture), read in windows without a copy of
  /// the whole.
  convenience init(data: Data, fileName: String, windowSize: Int = defaultWindowSize) {
    // Reading from memory cannot fail.
    try! self.init(source: CSVByteSource(data: data, fileName: fileName), windowSize: windowSize)
  }

  /// A window at the start of `source`.
  init(source: CSVByteSource, windowSize: Int = defaultWindowSize) throws {
    self.source = source
    // At least four bytes, so that a byte-order mark is seen whole in the first window.
    self.windowSize = Swift.max(windowSize, 4)
    // Small files get a window just large enough (plus one byte to see the end without a second
    // read).
    // Compared before adding the byte: a size hint of Int.max (a sparse file) must not overflow.
    let small = Swift.max(source.sizeHint, 4095)
    capacity = small < self.windowSize ? small + 1 : self.windowSize
    base = .allocate(capacity: capacity + 1)
    count = 0
    start = 0
    isComplete = false
    base[0] = 0
    try fill()
  }

  /// A copy of `other`'s bytes from `offset` on, for a cursor that must not move a shared window.
  private init(copying other: CSVBytes, from offset: Int) {
    source = other.source
    windowSize = other.windowSize
    capacity = other.capacity
    base = .allocate(capacity: capacity + 1)
    count = other.count - offset
    base.update(from: other.base + offset, count: count)
    base[count] = 0
    start = other.start + offset
    isComplete = other.isComplete
  }

  deinit { base.deallocate() }

  /// A new window holding this one's bytes from `offset` on (then refilled by the caller).
  func copy(from offset: Int) -> CSVBytes {
    CSVBytes(copying: self, from: offset)
  }

  /// Drops the bytes before `offset` and reads more of the file after the ones kept, growing the
  /// window when the kept bytes (one unfinished line) fill it. Offsets into the window move down by
  /// `offset`.
  ///
  /// - Throws: ``RecordingError`` when a line is longer than ``maximumLineLength`` or the file
  ///   cannot be read.
  func refill(keepingFrom offset: Int, lineNumber: Int) throws {
    precondition(offset >= 0 && offset <= count)
    if offset > 0 {
      count -= offset
      base.update(from: base + offset, count: count)
      start += offset
    }
    if count == capacity {
      guard capacity < CSVBytes.maximumLineLength else {
        throw RecordingError(
          .malformedRow, file: fileName, line: lineNumber,
          "the line is longer than \(CSVBytes.maximumLineLength >> 20) MiB")
      }
      let larger = Swift.min(capacity * 2, CSVBytes.maximumLineLength)
      let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: larger + 1)
      grown.update(from: base, count: count)
      base.deallocate()
      base = grown
      capacity = larger
    }
    try fill()
  }

  /// Reads into the free part of the window (one read: a regular file gives all that was asked).
  private func fill() throws {
    defer { base[count] = 0 }
    guard !isComplete, count < capacity else { return }
    let n = try source.read(at: start + count, into: base + count, count: capacity - count)
    if n == 0 { isComplete = true }
    count += n
  }

  /// The first line of the file (for format detection; empty for an empty file), without its line
  /// break; cut at the window's end when longer than the window.
  func firstLine() throws -> String {
    var cursor = CSVCursor(self)
    return try cursor.peekLine() ?? ""
  }

  /// The text of a byte range (for header cells and messages), with surrounding quotes removed.
  package func string(_ field: CSVField) -> String {
    var start = field.start
    var end = field.end
    if end - start >= 2, base[start] == UInt8(ascii: "\""), base[end - 1] == UInt8(ascii: "\"") {
      start += 1
      end -= 1
    }
    let text = String(
      decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
    return text.replacingOccurrences(of: "\"\"", with: "\"")
  }

  /// Whether the window is at the start of a file that starts with a UTF-8 byte-order mark
  /// (skipped by the cursor).
  var byteOrderMarkLength: Int {
    start == 0 && count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF ? 3 : 0
  }
}

/// Why a cell is not a number.
package enum CSVNumberError: Error {
  case empty
  case notANumber
}

extension CSVBytes {
  /// The cell's bounds without surrounding spaces and quotes.
  @inline(__always)
  func trimmed(_ field: CSVField) -> CSVField {
    var s = field.start
    var e = field.end
    while s < e && (base[s] == 0x20 || base[s] == 0x09) { s += 1 }
    while e > s && (base[e - 1] == 0x20 || base[e - 1] == 0x09) { e -= 1 }
    if e - s >= 2 && base[s] == UInt8(ascii: "\"") && base[e - 1] == UInt8(ascii: "\"") {
      s += 1
      e -= 1
    }
    return CSVField(start: s, end: e)
  }

  /// Parses a cell as a `Double` (correctly rounded, via the C library's `strtod`); `nil` for an
  /// empty cell. `nan` and `inf` parse (the caller decides whether they are allowed).
  ///
  /// - Parameter decimalComma: treat `,` as the decimal separator (exports from comma locales that
  ///   use `;` or tab between cells); the buffer is rewritten in place.
  @inline(__always)
  package func double(
    _ field: CSVField, decimalComma: Bool = false
  ) throws(CSVNumberError) -> Double? {
    let f = trimmed(field)
    if f.start == f.end { return nil }
    if decimalComma {
      for i in f.start..<f.end where base[i] == UInt8(ascii: ",") { base[i] = UInt8(ascii: ".") }
    }
    if let value = fastDouble(f) { return value }
    // strtod stops at the first byte that cannot continue a number, so it never runs past the
    // cell's end unless the cell itself ends early; the end check below catches both cases.
    let start = UnsafeMutableRawPointer(base + f.start).assumingMemoryBound(to: CChar.self)
    var end: UnsafeMutablePointer<CChar>? = nil
    let terminator = base[f.end]
    // Terminate the cell so that strtod cannot read the next cell's digits (e.g. after "1e").
    base[f.end] = 0
    let value = strtod(start, &end)
    base[f.end] = terminator
    guard let end, end - start == f.end - f.start else {
      throw .notANumber
    }
    return value
  }

  /// Exact powers of ten that a `Double` holds without rounding (10⁰ … 10²²).
  private static let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]

  /// Clinger's fast path for plain decimal numbers: when the digits form an integer below 2⁵³ and
  /// the decimal exponent is within ±22, both operands of one multiplication or division are exact,
  /// so IEEE rounding makes the result the correctly rounded value, the same bits `strtod` gives.
  /// Returns `nil` for anything else (long mantissas, large exponents, `nan`, malformed text), which
  /// the caller hands to `strtod`.
  @inline(__always)
  private func fastDouble(_ f: CSVField) -> Double? {
    var i = f.start
    let end = f.end
    var negative = false
    let first = base[i]
    if first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
      negative = first == UInt8(ascii: "-")
      i += 1
    }
    var mantissa: UInt64 = 0
    var exponent = 0
    var sawDigit = false
    var sawDot = false
    while i < end {
      let c = base[i]
      if c >= 48 && c <= 57 {
        guard mantissa < 100_000_000_000_000_000 else { return nil }
        mantissa = mantissa &* 10 &+ UInt64(c &- 48)
        if sawDot { exponent -= 1 }
        sawDigit = true
      } else if c == UInt8(ascii: ".") && !sawDot {
        sawDot = true
      } else {
        break
      }
      i += 1
    }
    guard sawDigit else { return nil }
    if i < end {
      guard base[i] == UInt8(ascii: "e") || base[i] == UInt8(ascii: "E") else { return nil }
      i += 1
      guard i < end else { return nil }
      var exponentNegative = false
      if base[i] == UInt8(ascii: "-") || base[i] == UInt8(ascii: "+") {
        exponentNegative = base[i] == UInt8(ascii: "-")
        i += 1
      }
      guard i < end else { return nil }
      var written = 0
      while i < end {
        let c = base[i]
        guard c >= 48 && c <= 57, written < 1000 else { return nil }
        written = written * 10 + Int(c - 48)
        i += 1
      }
      exponent += exponentNegative ? -written : written
    }
    guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
    var value = Double(mantissa)
    if exponent < 0 {
      value /= CSVBytes.exactPowersOfTen[-exponent]
    } else if exponent > 0 {
      value *= CSVBytes.exactPowersOfTen[exponent]
    }
    return negative ? -value : value
  }

  /// Parses a cell holding a signed decimal integer exactly (epoch nanoseconds exceed 2⁵³); `nil`
  /// for an empty cell, and `.notANumber` for anything else, including fractions and exponents.
  @inline(__always)
  func integer(_ field: CSVField) throws(CSVNumberError) -> Int64? {
    let f = trimmed(field)
    if f.start == f.end { return nil }
    var i = f.start
    var negative = false
    if base[i] == UInt8(ascii: "-") || base[i] == UInt8(ascii: "+") {
      negative = base[i] == UInt8(ascii: "-")
      i += 1
    }
    guard i < f.end else { throw .notANumber }
    var value: Int64 = 0
    while i < f.end {
      let digit = Int64(base[i]) - 48
      guard digit >= 0 && digit <= 9 else { throw .notANumber }
      let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
      let (sum, o2) = shifted.addingReportingOverflow(digit)
      if o1 || o2 { throw .notANumber }
      value = sum
      i += 1
    }
    return negative ? -value : value
  }
}
