// SPDX-License-Identifier: Apache-2.0

/// The `date` of `GET /api/history/day?date=YYYY-MM-DD`, checked before anything reads it: the
/// query is the peer's text, so only exactly ten ASCII bytes, four digits, a dash, two digits, a
/// dash and two digits, naming a real Gregorian date (years 0001–9999) get through. The digits
/// are read one byte at a time into bounded integers (no parse of unchecked text, no allocation
/// sized by the input, and a long input is refused at its eleventh byte).
enum DashboardCalendarDate {
  /// `text` when it is such a date, else `nil`.
  static func validated(_ text: Substring) -> String? {
    var year = 0
    var month = 0
    var day = 0
    var count = 0
    for byte in text.utf8 {
      guard count < 10 else { return nil }
      if count == 4 || count == 7 {
        guard byte == UInt8(ascii: "-") else { return nil }
      } else {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        let digit = Int(byte - UInt8(ascii: "0"))
        switch count {
        case 0..<4: year = year * 10 + digit
        case 5..<7: month = month * 10 + digit
        default: day = day * 10 + digit
        }
      }
      count += 1
    }
    guard count == 10, year >= 1, (1...12).contains(month), day >= 1,
      day <= daysIn(month: month, year: year)
    else { return nil }
    return String(text)
  }

  /// Days in `month` (1–12) of `year` in the Gregorian calendar.
  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2:
      let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
      return leap ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}
