// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Draws the demo's live readout: labelled values with centred bars, like the classic Core Motion
/// sample app. On a terminal it redraws in place with ANSI cursor movement; when the output is
/// piped it prints plain lines instead.
struct TerminalReadout {
  /// One labelled row of the readout.
  struct Row {
    var label: String
    var values: [(name: String, value: Double)]
    /// The value that fills a half bar, in the row's unit.
    var fullScale: Double
    var unit: String
    var showsBars = true
  }

  let isInteractive: Bool
  private var linesDrawn = 0

  init(isInteractive: Bool = isatty(STDOUT_FILENO) != 0) {
    self.isInteractive = isInteractive
  }

  /// A bar `width` characters wide, centred on zero: `[     |###  ]` for a positive value.
  static func bar(_ value: Double, fullScale: Double, width: Int = 21) -> String {
    let half = width / 2
    guard value.isFinite, fullScale > 0 else {
      return "[" + String(repeating: " ", count: half) + "|" + String(repeating: " ", count: half)
        + "]"
    }
    // Clamp in floating point first: a value of 1e20 from a phone stream must draw a full bar, not
    // trap.
    let filled = Int(min(Double(half), (abs(value) / fullScale * Double(half)).rounded()))
    let blank = String(repeating: " ", count: half - filled)
    let fill = String(repeating: "#", count: filled)
    let left = value < 0 ? blank + fill : String(repeating: " ", count: half)
    let right = value > 0 ? fill + blank : String(repeating: " ", count: half)
    return "[" + left + "|" + right + "]"
  }

  /// The text of a row: the label, then each value with its bar.
  static func format(_ row: Row) -> String {
    var text = row.label.padding(toLength: 16, withPad: " ", startingAt: 0)
    for (name, value) in row.values {
      let number = String(format: "%+8.2f", value)
      text += " \(name) \(number)\(row.unit)"
      if row.showsBars { text += " " + bar(value, fullScale: row.fullScale, width: 11) }
    }
    return text
  }

  /// Draws a frame: a header line, the rows, and a footer line.
  mutating func draw(header: String, rows: [Row], footer: String) {
    let lines = [header] + rows.map(Self.format) + [footer]
    if isInteractive {
      var output = ""
      if linesDrawn > 0 { output += "\u{1B}[\(linesDrawn)A" }  // cursor up to the frame's start
      for line in lines { output += "\u{1B}[2K" + line + "\n" }  // clear each line, then draw it
      FileHandle.standardOutput.write(Data(output.utf8))
      linesDrawn = lines.count
    } else {
      print(lines.joined(separator: " | "))
    }
  }
}
