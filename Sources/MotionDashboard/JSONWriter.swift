// SPDX-License-Identifier: Apache-2.0

/// A minimal JSON text writer for the dashboard's frames.
///
/// Frames go out 30 times a second to every tab, so they are written straight into one string
/// instead of through `JSONEncoder` (which on Linux costs more than the rest of the server at 100
/// Hz). Numbers below 1000 in magnitude are written as `Float` (about 7 significant digits, more
/// than any sensor resolves); larger ones (timestamps in seconds since boot, wall-clock
/// milliseconds) in full `Double` precision, so 100 Hz times stay distinct. Non-finite numbers are
/// written as `null`, so the output is always valid JSON.
package struct JSONWriter {
  package private(set) var text = ""
  /// Whether the next value at this nesting level needs a comma before it.
  private var needsComma = false

  package init(capacity: Int = 1024) {
    text.reserveCapacity(capacity)
  }

  private mutating func separate() {
    if needsComma { text.append(",") }
    needsComma = true
  }

  package mutating func beginObject() {
    separate()
    text.append("{")
    needsComma = false
  }

  package mutating func endObject() {
    text.append("}")
    needsComma = true
  }

  package mutating func beginArray() {
    separate()
    text.append("[")
    needsComma = false
  }

  package mutating func endArray() {
    text.append("]")
    needsComma = true
  }

  /// Writes `"name":` inside an object; the value written next needs no comma of its own.
  package mutating func key(_ name: String) {
    separate()
    appendQuoted(name)
    text.append(":")
    needsComma = false
  }

  package mutating func number(_ value: Double) {
    separate()
    appendNumber(value)
  }

  package mutating func integer(_ value: Int) {
    separate()
    text.append(String(value))
  }

  package mutating func string(_ value: String) {
    separate()
    appendQuoted(value)
  }

  package mutating func bool(_ value: Bool) {
    separate()
    text.append(value ? "true" : "false")
  }

  package mutating func null() {
    separate()
    text.append("null")
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

  private mutating func appendNumber(_ value: Double) {
    guard value.isFinite else {
      text.append("null")
      return
    }
    // Whole numbers print without a fraction (the descriptions would add ".0").
    if value == value.rounded(), abs(value) < 1e15 {
      text.append(String(Int64(value)))
    } else if abs(value) < 1000 {
      text.append(Float(value).description)
    } else {
      text.append(value.description)
    }
  }

  private mutating func appendQuoted(_ value: String) {
    text.append("\"")
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": text.append("\\\"")
      case "\\": text.append("\\\\")
      case "\n": text.append("\\n")
      case "\r": text.append("\\r")
      case "\t": text.append("\\t")
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        text.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
      default: text.unicodeScalars.append(scalar)
      }
    }
    text.append("\"")
  }
}
