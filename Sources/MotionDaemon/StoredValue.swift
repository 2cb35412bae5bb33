// SPDX-License-Identifier: Apache-2.0

import Foundation
import GRDB
import Logging

/// A column of the history file holding what motiond never writes there: a NULL, a text, a blob
/// where a number belongs, a number out of range. The file is the user's and may have been edited
/// or damaged, so queries skip such a row (counting it) rather than trust it.
struct StoredValueError: Error, CustomStringConvertible {
  var column: String
  var found: String
  var expected: String

  init(column: String, value: DatabaseValue, expected: String) {
    self.column = column
    self.expected = expected
    switch value.storage {
    case .null: found = "NULL"
    case .int64(let integer): found = "the integer \(integer)"
    case .double(let double): found = "the number \(double)"
    // Never the whole text or blob: the log line stays short whatever the file holds.
    case .string(let text): found = "a text of \(text.utf8.count) bytes"
    case .blob(let data): found = "a blob of \(data.count) bytes"
    }
  }

  var description: String { "\(column) holds \(found), not \(expected)" }
}

extension Row {
  /// The raw value of `column`. GRDB's subscripts convert with `try!`, which stops the process on
  /// a value of another type: every read of the history goes through this instead and converts
  /// with checks. A missing column (a schema motiond did not make) throws GRDB's error.
  private func storedValue(_ column: String) throws -> DatabaseValue {
    try decode(DatabaseValue.self, forColumn: column)
  }

  /// The finite number in `column`, at least `minimum`.
  func storedNumber(
    _ column: String, atLeast minimum: Double = -.greatestFiniteMagnitude
  ) throws
    -> Double
  {
    let value = try storedValue(column)
    let number: Double?
    switch value.storage {
    case .int64(let integer): number = Double(integer)
    case .double(let double): number = double
    default: number = nil
    }
    guard let number, number.isFinite, number >= minimum else {
      throw StoredValueError(
        column: column, value: value, expected: "a finite number of at least \(minimum)")
    }
    return number
  }

  /// The integer in `column`, within `range`. A REAL is taken only when it is a whole number
  /// within Int64 (SQLite keeps a REAL in an INTEGER column when no integer equals it).
  func storedInteger(
    _ column: String, in range: ClosedRange<Int64> = Int64.min...Int64.max
  ) throws -> Int64 {
    let value = try storedValue(column)
    let integer: Int64?
    switch value.storage {
    case .int64(let stored): integer = stored
    case .double(let double): integer = Int64(exactly: double)
    default: integer = nil
    }
    guard let integer, range.contains(integer) else {
      throw StoredValueError(
        column: column, value: value,
        expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
    }
    return integer
  }

  /// The blob in `column`.
  func storedBlob(_ column: String) throws -> Data {
    let value = try storedValue(column)
    guard case .blob(let data) = value.storage else {
      throw StoredValueError(column: column, value: value, expected: "a blob")
    }
    return data
  }
}

/// The rows one query skipped as unusable, reported in one log line per query.
struct SkippedRows {
  private(set) var count = 0
  private(set) var first: StoredValueError?

  mutating func note(_ error: StoredValueError) {
    count += 1
    if first == nil { first = error }
  }
}
