// SPDX-License-Identifier: Apache-2.0

extension SIMD3 where Scalar == Double {
  /// The dot product.
  @inlinable
  public func dot(_ other: SIMD3<Double>) -> Double {
    x * other.x + y * other.y + z * other.z
  }

  /// The cross product `self × other` (right-handed).
  @inlinable
  public func cross(_ other: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(y * other.z - z * other.y, z * other.x - x * other.z, x * other.y - y * other.x)
  }

  /// The squared Euclidean length.
  @inlinable
  public var lengthSquared: Double { x * x + y * y + z * z }

  /// The Euclidean length.
  @inlinable
  public var length: Double { lengthSquared.squareRoot() }

  /// This vector scaled to unit length, or zero when its length is zero or not finite.
  @inlinable
  public var normalized: SIMD3<Double> {
    let n = length
    guard n > 0, n.isFinite else { return .zero }
    return self / n
  }

  /// Whether all three components are finite.
  @inlinable
  public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}
