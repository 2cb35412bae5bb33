// SPDX-License-Identifier: Apache-2.0

/// Text from a network peer, made safe to put in a message that a terminal or a log shows: at
/// most `maximumCharacters` characters (then "…"), with every control character (C0, DEL, C1),
/// line or paragraph separator and bidirectional override written as an escape such as `\u{1B}`.
/// A peer could otherwise set the terminal's title, clear the screen, or forge a log line with a
/// line break.
package func printableExcerpt(_ text: some StringProtocol, maximumCharacters: Int) -> String {
  var result = ""
  var count = 0
  for scalar in text.unicodeScalars {
    if count >= maximumCharacters {
      result += "…"
      break
    }
    let value = scalar.value
    let isControl = value < 0x20 || (0x7F...0x9F).contains(value)
    let isLayout =
      value == 0x2028 || value == 0x2029 || (0x202A...0x202E).contains(value)
      || (0x2066...0x2069).contains(value)
    if isControl || isLayout {
      result += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
    } else {
      result.unicodeScalars.append(scalar)
    }
    count += 1
  }
  return result
}
