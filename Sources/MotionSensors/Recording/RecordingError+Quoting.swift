// SPDX-License-Identifier: Apache-2.0

extension RecordingError {
  /// `text` in double quotes for a message, with control characters written as `\u{XX}`.
  ///
  /// Text from a file may hold bytes a terminal does not show (a NUL, a carriage return, an escape
  /// sequence): printed as they are, `"0\0"` reads as a valid `"0"` and the message seems to reject
  /// a good number, or the terminal acts on the bytes. Escaping them shows what the file holds.
  static func quoted<S: StringProtocol>(_ text: S) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      let value = scalar.value
      if value < 0x20 || (value >= 0x7F && value < 0xA0) {
        result += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}
