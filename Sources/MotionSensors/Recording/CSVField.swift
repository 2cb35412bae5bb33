// SPDX-License-Identifier: Apache-2.0

/// One cell of a row: a byte range in a ``CSVBytes`` buffer, spaces and quotes included.
package struct CSVField: Sendable, Equatable {
  package var start: Int
  package var end: Int
  package var isEmpty: Bool { start == end }
}
