// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A 3×3 rotation matrix with fields `m11` … `m33` (row, column).
///
/// `CMAttitude.rotationMatrix` is `deviceFromReference`: column j holds reference axis j written in
/// device coordinates and row i holds device axis i written in reference coordinates
/// (`m_ij = deviceAxis_i · referenceAxis_j`), so gravity in the device frame is (−m13, −m23, −m33)
/// in g. See `docs/AppleCompatibility.md`.
public struct CMRotationMatrix: Sendable {
  public var m11: Double
  public var m12: Double
  public var m13: Double
  public var m21: Double
  public var m22: Double
  public var m23: Double
  public var m31: Double
  public var m32: Double
  public var m33: Double

  /// Creates the all-zero matrix, as Apple's zero initializer does (not the identity).
  public init() {
    self.init(m11: 0, m12: 0, m13: 0, m21: 0, m22: 0, m23: 0, m31: 0, m32: 0, m33: 0)
  }

  /// Creates a matrix from its nine elements, row by row.
  public init(
    m11: Double, m12: Double, m13: Double,
    m21: Double, m22: Double, m23: Double,
    m31: Double, m32: Double, m33: Double
  ) {
    self.m11 = m11
    self.m12 = m12
    self.m13 = m13
    self.m21 = m21
    self.m22 = m22
    self.m23 = m23
    self.m31 = m31
    self.m32 = m32
    self.m33 = m33
  }
}

extension CMRotationMatrix {
  init(_ m: RotationMatrix) {
    self.init(
      m11: m.row1.x, m12: m.row1.y, m13: m.row1.z,
      m21: m.row2.x, m22: m.row2.y, m23: m.row2.z,
      m31: m.row3.x, m32: m.row3.y, m33: m.row3.z)
  }

  /// The MotionMath matrix with the same elements.
  var matrix: RotationMatrix {
    RotationMatrix(
      row1: SIMD3(m11, m12, m13), row2: SIMD3(m21, m22, m23), row3: SIMD3(m31, m32, m33))
  }
}
