// SPDX-License-Identifier: Apache-2.0

/// A problem reading or writing a recording, with the file, line and column where there is one.
///
/// The ``description`` reads like a compiler diagnostic (`walk.csv:17: column "acc_x": ...`) so
/// that a command-line tool can print it as is.
public struct RecordingError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What kind of problem this is.
  public enum Kind: String, Sendable, Equatable {
    /// The file or folder does not exist.
    case fileNotFound
    /// The file exists but could not be read (permissions, I/O error, damaged archive).
    case unreadable
    /// The format could not be recognised, or the requested format does not fit the file.
    case unknownFormat
    /// The header (comment lines, column names) is missing or inconsistent.
    case malformedHeader
    /// A data row could not be parsed (wrong number of cells, text where a number belongs, a vector
    /// with some axes missing).
    case malformedRow
    /// A row's timestamp is earlier than the previous row's.
    case timestampWentBackwards
    /// A sensor value or timestamp is NaN or infinite, or a timestamp is a glitch: far ahead of
    /// the previous row's, with the next row back on the old timeline.
    case invalidValue
    /// The file could not be written or a sample does not fit the recording.
    case writeFailed
  }

  /// What kind of problem this is.
  public var kind: Kind
  /// The path (or name) of the file concerned.
  public var file: String
  /// The 1-based line number in ``file``, when the problem is on one line.
  public var line: Int?
  /// The column name concerned, when one is.
  public var column: String?
  /// What is wrong, for people.
  public var message: String
  /// Whether the reader would have left the row out and counted it had it been asked to skip
  /// invalid rows (``RecordingReader/InvalidRowPolicy/skip``): a tool can say so.
  package var wouldBeSkipped = false

  /// Creates an error.
  public init(
    _ kind: Kind, file: String, line: Int? = nil, column: String? = nil, _ message: String
  ) {
    self.kind = kind
    self.file = file
    self.line = line
    self.column = column
    self.message = message
  }

  /// Errors are equal when they say the same thing about the same place (whether the row would
  /// have been skipped is a hint for tools, not part of the error).
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.kind == rhs.kind && lhs.file == rhs.file && lhs.line == rhs.line
      && lhs.column == rhs.column && lhs.message == rhs.message
  }

  public var description: String {
    var text = file
    if let line { text += ":\(line)" }
    text += ": "
    if let column { text += "column \"\(column)\": " }
    return text + message
  }
}
