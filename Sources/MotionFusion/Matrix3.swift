// SPDX-License-Identifier: Apache-2.0

/// A small 3×3 matrix stored by rows, for the gyroscope-bias Kalman filter (covariances and
/// measurement matrices) without heap allocation.
struct Matrix3: Sendable, Equatable {
  var row1: SIMD3<Double>
  var row2: SIMD3<Double>
  var row3: SIMD3<Double>

  @inline(__always)
  init(row1: SIMD3<Double>, row2: SIMD3<Double>, row3: SIMD3<Double>) {
    self.row1 = row1
    self.row2 = row2
    self.row3 = row3
  }

  /// `value` times the identity.
  static func diagonal(_ value: Double) -> Matrix3 {
    Matrix3(row1: SIMD3(value, 0, 0), row2: SIMD3(0, value, 0), row3: SIMD3(0, 0, value))
  }

  var column1: SIMD3<Double> { SIMD3(row1.x, row2.x, row3.x) }
  var column2: SIMD3<Double> { SIMD3(row1.y, row2.y, row3.y) }
  var column3: SIMD3<Double> { SIMD3(row1.z, row2.z, row3.z) }
  var transposed: Matrix3 { Matrix3(row1: column1, row2: column2, row3: column3) }
  var trace: Double { row1.x + row2.y + row3.z }

  @inline(__always)
  static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3((m.row1 * v).sum(), (m.row2 * v).sum(), (m.row3 * v).sum())
  }

  @inline(__always)
  static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
    Matrix3(
      row1: a.row1.x * b.row1 + a.row1.y * b.row2 + a.row1.z * b.row3,
      row2: a.row2.x * b.row1 + a.row2.y * b.row2 + a.row2.z * b.row3,
      row3: a.row3.x * b.row1 + a.row3.y * b.row2 + a.row3.z * b.row3)
  }

  static func + (a: Matrix3, b: Matrix3) -> Matrix3 {
    Matrix3(row1: a.row1 + b.row1, row2: a.row2 + b.row2, row3: a.row3 + b.row3)
  }

  static func - (a: Matrix3, b: Matrix3) -> Matrix3 {
    Matrix3(row1: a.row1 - b.row1, row2: a.row2 - b.row2, row3: a.row3 - b.row3)
  }

  /// The inverse by the adjugate, or `nil` when the matrix is (numerically) singular.
  var inverse: Matrix3? {
    let c1 = row2.cross3(row3)
    let c2 = row3.cross3(row1)
    let c3 = row1.cross3(row2)
    let det = (row1 * c1).sum()
    guard Swift.abs(det) > 1e-300, det.isFinite else { return nil }
    let inv = 1 / det
    // The rows of the inverse are the columns formed by the cross products.
    return Matrix3(row1: c1, row2: c2, row3: c3).transposed.scaled(by: inv)
  }

  func scaled(by s: Double) -> Matrix3 { Matrix3(row1: s * row1, row2: s * row2, row3: s * row3) }
}

extension SIMD3 where Scalar == Double {
  @inline(__always)
  func cross3(_ o: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
  }
}
