// SPDX-License-Identifier: Apache-2.0

/// One cell of a row: a byte range in a ``CSVBytes`` buffer, spaces and quotes included.
struct CSVField: Sendable, Equatable {
  var start: Int
  var end: Int
  var isEmpty: Bool { start == end }
}
