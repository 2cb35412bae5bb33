// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A sensor's mount matrix: how to turn the chip's axes into the device's axes.
///
/// The kernel prints it row-major as `"a, b, c; d, e, f; g, h, i"` (`in_accel_mount_matrix`,
/// `mount_matrix`, …); the first `;`-group is the row that produces the corrected x. Values are
/// corrected = M · v, applied after scaling to physical units (entries need not be integers, but
/// are at most 1 in magnitude, as a rotation's are).
public struct IIOMountMatrix: Hashable, Sendable, CustomStringConvertible {
  /// The three rows.
  public var rows: [SIMD3<Double>]

  /// The identity (what the kernel prints when no matrix is configured).
  public static let identity = IIOMountMatrix(
    rows: [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)])

  /// Creates a matrix from three rows.
  public init(rows: [SIMD3<Double>]) {
    precondition(rows.count == 3, "a mount matrix has three rows")
    self.rows = rows
  }

  /// Parses the kernel's text. Returns nil for malformed text, for a matrix with an all-zero row,
  /// which would erase an axis (hwdb entries with a typo produce those), and for one with an entry
  /// of magnitude above 1. Empty text is the identity.
  public init?(parsing text: String) {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.isEmpty {
      self = .identity
      return
    }
    let groups = trimmed.split(separator: ";", omittingEmptySubsequences: false)
    guard groups.count == 3 else { return nil }
    var rows: [SIMD3<Double>] = []
    for group in groups {
      let numbers = group.split(separator: ",", omittingEmptySubsequences: false).map {
        Double($0.trimmingCharacters(in: .whitespaces))
      }
      // The kernel's ABI calls it a rotation matrix, whose entries are cosines: one above 1 in
      // magnitude (1e308) is no orientation, and would scale readings beyond measurement. NaN
      // and infinities fail the comparison too.
      guard numbers.count == 3, let x = numbers[0], let y = numbers[1], let z = numbers[2],
        abs(x) <= 1, abs(y) <= 1, abs(z) <= 1
      else { return nil }
      let row = SIMD3(x, y, z)
      guard row != .zero else { return nil }
      rows.append(row)
    }
    self.rows = rows
  }

  /// Whether this is the identity.
  public var isIdentity: Bool { self == .identity }

  /// Applies the matrix: corrected = M · v.
  @inlinable
  public func apply(_ v: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3((rows[0] * v).sum(), (rows[1] * v).sum(), (rows[2] * v).sum())
  }

  /// The kernel's spelling.
  public var description: String {
    rows.map { row in [row.x, row.y, row.z].map(Self.format).joined(separator: ", ") }
      .joined(separator: "; ")
  }

  private static func format(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
  }
}
