// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Finds columns by name in a header row: case-insensitive, ignoring surrounding spaces and quotes.
struct ColumnIndex {
  let names: [String]
  private let lookup: [String: Int]

  init(_ names: [String]) {
    self.names = names
    var lookup: [String: Int] = [:]
    for (i, name) in names.enumerated() {
      let key = ColumnIndex.normalize(name)
      if lookup[key] == nil { lookup[key] = i }
    }
    self.lookup = lookup
  }

  /// A column name reduced for comparison: lower case, trimmed, Greek mu (U+03BC) folded to the
  /// micro sign (U+00B5) so that `μT` and `µT` match.
  static func normalize(_ name: String) -> String {
    name.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\"")))
      .lowercased().replacingOccurrences(of: "\u{03BC}", with: "\u{00B5}")
  }

  /// The index of the first column called `name`.
  func callAsFunction(_ name: String) -> Int? { lookup[ColumnIndex.normalize(name)] }

  /// The indices of three columns, if all exist.
  func vector(_ x: String, _ y: String, _ z: String) -> SIMD3<Int>? {
    guard let i = self(x), let j = self(y), let k = self(z) else { return nil }
    return SIMD3(i, j, k)
  }

  /// The first column whose normalized name starts with `prefix`.
  func first(withPrefix prefix: String) -> Int? {
    let p = ColumnIndex.normalize(prefix)
    return names.firstIndex { ColumnIndex.normalize($0).hasPrefix(p) }
  }
}
