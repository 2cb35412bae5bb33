// SPDX-License-Identifier: Apache-2.0

/// A minimal JSON text writer for the dashboard's frames.
///
/// Frames go out 30 times a second to every tab, so they are written straight into one byte
/// buffer instead of through `JSONEncoder` (which on Linux costs more than the rest of the server
/// at 100 Hz). Numbers are written in fixed point with at most six decimals (1 µs for times, 1e-6
/// g, rad/s or µT, 1 mPa), trailing zeros dropped: more than any sensor resolves, and no
/// per-number `String`. Numbers below 0.001 in magnitude keep seven significant digits (`Float`),
/// and magnitudes from 1e13 up are written in full. Non-finite numbers are written as `null`, so
/// the output is always valid JSON.
package struct JSONWriter {
  private var bytes: [UInt8] = []
  /// Whether the next value at this nesting level needs a comma before it.
  private var needsComma = false

  package init(capacity: Int = 1024) {
    bytes.reserveCapacity(capacity)
  }

  /// The JSON text written so far.
  package var text: String { String(decoding: bytes, as: UTF8.self) }

  /// The text as UTF-8 bytes.
  package var utf8: [UInt8] { bytes }

  private mutating func append(_ string: String) {
    bytes.append(contentsOf: string.utf8)
  }

  private mutating func separate() {
    if needsComma { bytes.append(UInt8(ascii: ",")) }
    needsComma = true
  }

  package mutating func beginObject() {
    separate()
    append("{")
    needsComma = false
  }

  package mutating func endObject() {
    append("}")
    needsComma = true
  }

  package mutating func beginArray() {
    separate()
    append("[")
    needsComma = false
  }

  package mutating func endArray() {
    append("]")
    needsComma = true
  }

  /// Writes `"name":` inside an object; the value written next needs no comma of its own.
  package mutating func key(_ name: String) {
    separate()
    appendQuoted(name)
    append(":")
    needsComma = false
  }

  package mutating func number(_ value: Double) {
    separate()
    appendNumber(value)
  }

  package mutating func integer(_ value: Int) {
    separate()
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    appendDigits(UInt64(value.magnitude))
  }

  package mutating func string(_ value: String) {
    separate()
    appendQuoted(value)
  }

  package mutating func bool(_ value: Bool) {
    separate()
    append(value ? "true" : "false")
  }

  package mutating func null() {
    separate()
    append("null")
  }

  /// Writes several numbers as one array, e.g. a sample row.
  package mutating func numbers(_ values: some Sequence<Double>) {
    beginArray()
    for value in values { number(value) }
    endArray()
  }

  package mutating func field(_ name: String, _ value: Double) {
    key(name)
    number(value)
  }

  package mutating func field(_ name: String, _ value: Int) {
    key(name)
    integer(value)
  }

  package mutating func field(_ name: String, _ value: String) {
    key(name)
    string(value)
  }

  package mutating func field(_ name: String, _ value: Bool) {
    key(name)
    bool(value)
  }

  /// Magnitudes from this up are written by `Double.description` (none of the frame's numbers is
  /// this large; a wall-clock time in ms is about 1.8e12).
  private static let largestFixedPoint = 1e13

  private mutating func appendNumber(_ value: Double) {
    guard value.isFinite else {
      append("null")
      return
    }
    let magnitude = value.magnitude
    guard magnitude < Self.largestFixedPoint else {
      append(value.description)
      return
    }
    guard magnitude >= 0.001 || magnitude == 0 else {
      append(Float(value).description)
      return
    }
    // The whole part and the fraction apart: `magnitude * 1e6` would round away digits above
    // 2^53 (a wall-clock time in ms). Both subtraction and the whole part are exact.
    var whole = magnitude.rounded(.down)
    var fraction = UInt64(((magnitude - whole) * 1e6).rounded())
    if fraction == 1_000_000 {
      whole += 1
      fraction = 0
    }
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    appendDigits(UInt64(whole))
    guard fraction != 0 else { return }
    var decimals = 6
    while fraction % 10 == 0 {
      fraction /= 10
      decimals -= 1
    }
    bytes.append(UInt8(ascii: "."))
    // Leading zeros of the fraction, then its digits.
    var width = 1
    var power: UInt64 = 10
    while fraction >= power {
      width += 1
      power *= 10
    }
    for _ in 0..<(decimals - width) { bytes.append(UInt8(ascii: "0")) }
    appendDigits(fraction)
  }

  /// The decimal digits of `value`, most significant first.
  private mutating func appendDigits(_ value: UInt64) {
    guard value >= 10 else {
      bytes.append(UInt8(ascii: "0") + UInt8(value))
      return
    }
    // At most 20 digits: written backwards into 24 bytes on the stack, then copied in order.
    var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
    withUnsafeMutableBytes(of: &scratch) { buffer in
      var remaining = value
      var index = buffer.count
      while remaining > 0 {
        index -= 1
        buffer[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
        remaining /= 10
      }
      bytes.append(contentsOf: buffer[index...])
    }
  }

  /// `value` as a JSON string. Escaping works on the UTF-8 bytes: every byte of a multi-byte
  /// sequence is 0x80 or more, so only ASCII quotes, backslashes and controls are touched.
  private mutating func appendQuoted(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""): append("\\\"")
      case UInt8(ascii: "\\"): append("\\\\")
      case UInt8(ascii: "\n"): append("\\n")
      case UInt8(ascii: "\r"): append("\\r")
      case UInt8(ascii: "\t"): append("\\t")
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        append("\\u00")
        bytes.append(hex[Int(byte >> 4)])
        bytes.append(hex[Int(byte & 0x0F)])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }
}
