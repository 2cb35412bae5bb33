// SPDX-License-Identifier: Apache-2.0

/// A 3×3 matrix stored by rows, used for rotations (direction cosine matrices).
///
/// As with quaternions, name a rotation matrix by its frames: `earthFromSensor * v_sensor ==
/// v_earth`. The columns of `earthFromSensor` are the sensor axes written in earth coordinates; its
/// rows are the earth axes written in sensor coordinates.
public struct RotationMatrix: Hashable, Sendable {
  /// The first row `(m11, m12, m13)`.
  public var row1: SIMD3<Double>
  /// The second row `(m21, m22, m23)`.
  public var row2: SIMD3<Double>
  /// The third row `(m31, m32, m33)`.
  public var row3: SIMD3<Double>

  /// Creates a matrix from its rows.
  @inlinable
  public init(row1: SIMD3<Double>, row2: SIMD3<Double>, row3: SIMD3<Double>) {
    self.row1 = row1
    self.row2 = row2
    self.row3 = row3
  }

  /// Creates a matrix from its columns.
  @inlinable
  public init(column1 c1: SIMD3<Double>, column2 c2: SIMD3<Double>, column3 c3: SIMD3<Double>) {
    self.init(
      row1: SIMD3(c1.x, c2.x, c3.x), row2: SIMD3(c1.y, c2.y, c3.y), row3: SIMD3(c1.z, c2.z, c3.z))
  }

  /// The identity matrix.
  public static let identity = RotationMatrix(
    row1: SIMD3(1, 0, 0), row2: SIMD3(0, 1, 0), row3: SIMD3(0, 0, 1))

  /// The rotation matrix of a unit quaternion: `RotationMatrix(q) * v == q.act(on: v)`.
  @inlinable
  public init(_ q: Quaternion) {
    let (w, x, y, z) = (q.w, q.x, q.y, q.z)
    self.init(
      row1: SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
      row2: SIMD3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
      row3: SIMD3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
  }

  /// The first column.
  @inlinable public var column1: SIMD3<Double> { SIMD3(row1.x, row2.x, row3.x) }
  /// The second column.
  @inlinable public var column2: SIMD3<Double> { SIMD3(row1.y, row2.y, row3.y) }
  /// The third column.
  @inlinable public var column3: SIMD3<Double> { SIMD3(row1.z, row2.z, row3.z) }

  /// The transpose; for a rotation, its inverse (`sensorFromEarth == earthFromSensor.transposed`).
  @inlinable
  public var transposed: RotationMatrix {
    RotationMatrix(row1: column1, row2: column2, row3: column3)
  }

  /// The determinant (+1 for a proper rotation).
  @inlinable
  public var determinant: Double { row1.dot(row2.cross(row3)) }

  /// Matrix–vector product.
  @inlinable
  public static func * (m: RotationMatrix, v: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(m.row1.dot(v), m.row2.dot(v), m.row3.dot(v))
  }

  /// Matrix–matrix product.
  @inlinable
  public static func * (a: RotationMatrix, b: RotationMatrix) -> RotationMatrix {
    let t = b.transposed
    return RotationMatrix(
      row1: SIMD3(a.row1.dot(t.row1), a.row1.dot(t.row2), a.row1.dot(t.row3)),
      row2: SIMD3(a.row2.dot(t.row1), a.row2.dot(t.row2), a.row2.dot(t.row3)),
      row3: SIMD3(a.row3.dot(t.row1), a.row3.dot(t.row2), a.row3.dot(t.row3)))
  }
}

extension Quaternion {
  /// The unit quaternion of a rotation matrix (Shepperd's method: pivot on the largest diagonal
  /// term so the square root never sees a small or negative argument). The result has `w ≥ 0`.
  public init(_ m: RotationMatrix) {
    let (m11, m12, m13) = (m.row1.x, m.row1.y, m.row1.z)
    let (m21, m22, m23) = (m.row2.x, m.row2.y, m.row2.z)
    let (m31, m32, m33) = (m.row3.x, m.row3.y, m.row3.z)
    let trace = m11 + m22 + m33
    let q: Quaternion
    if trace >= m11, trace >= m22, trace >= m33 {
      let s = 2 * (1 + trace).squareRoot()
      q = Quaternion(w: s / 4, x: (m32 - m23) / s, y: (m13 - m31) / s, z: (m21 - m12) / s)
    } else if m11 >= m22, m11 >= m33 {
      let s = 2 * (1 + m11 - m22 - m33).squareRoot()
      q = Quaternion(w: (m32 - m23) / s, x: s / 4, y: (m12 + m21) / s, z: (m13 + m31) / s)
    } else if m22 >= m33 {
      let s = 2 * (1 + m22 - m11 - m33).squareRoot()
      q = Quaternion(w: (m13 - m31) / s, x: (m12 + m21) / s, y: s / 4, z: (m23 + m32) / s)
    } else {
      let s = 2 * (1 + m33 - m11 - m22).squareRoot()
      q = Quaternion(w: (m21 - m12) / s, x: (m13 + m31) / s, y: (m23 + m32) / s, z: s / 4)
    }
    self = q.normalized.canonicalized
  }
}
