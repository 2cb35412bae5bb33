// SPDX-License-Identifier: Apache-2.0

/// A quaternion `w + x·i + y·j + z·k` with `Double` components.
///
/// Unit quaternions represent rotations. Throughout OpenCoreMotion a rotation quaternion is named
/// by the frames it connects: `earthFromSensor` maps a vector written in sensor coordinates to the
/// same vector written in earth coordinates (`earthFromSensor.act(on: v_sensor) == v_earth`). See
/// the Conventions article in the OpenCoreMotion documentation.
///
/// The components are named; there is deliberately no positional order. Conversions to and from
/// vectors are explicit: ``init(wxyz:)``, ``wxyz``, ``init(xyzw:)`` and ``xyzw``.
///
/// `q` and `-q` describe the same rotation but do not compare equal; compare rotations with
/// ``angle(to:)``.
public struct Quaternion: Hashable, Sendable {
  /// The real (scalar) part.
  public var w: Double
  /// The coefficient of `i`.
  public var x: Double
  /// The coefficient of `j`.
  public var y: Double
  /// The coefficient of `k`.
  public var z: Double

  /// Creates a quaternion from its four named components.
  @inlinable
  public init(w: Double, x: Double, y: Double, z: Double) {
    self.w = w
    self.x = x
    self.y = y
    self.z = z
  }

  /// Creates a quaternion from a real part and an imaginary (vector) part.
  @inlinable
  public init(real: Double, imaginary: SIMD3<Double>) {
    self.init(w: real, x: imaginary.x, y: imaginary.y, z: imaginary.z)
  }

  /// Creates a quaternion from a vector laid out scalar first: `(w, x, y, z)` (VQF, Fusion, BROAD).
  @inlinable
  public init(wxyz v: SIMD4<Double>) {
    self.init(w: v[0], x: v[1], y: v[2], z: v[3])
  }

  /// Creates a quaternion from a vector laid out scalar last: `(x, y, z, w)` (Core Motion, ROS).
  @inlinable
  public init(xyzw v: SIMD4<Double>) {
    self.init(w: v[3], x: v[0], y: v[1], z: v[2])
  }

  /// The identity rotation.
  public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

  /// The components laid out scalar first: `(w, x, y, z)`.
  @inlinable
  public var wxyz: SIMD4<Double> { SIMD4(w, x, y, z) }

  /// The components laid out scalar last: `(x, y, z, w)`.
  @inlinable
  public var xyzw: SIMD4<Double> { SIMD4(x, y, z, w) }

  /// The imaginary part `(x, y, z)`.
  @inlinable
  public var imaginary: SIMD3<Double> { SIMD3(x, y, z) }

  /// The conjugate `w − x·i − y·j − z·k`; for a unit quaternion, the inverse rotation.
  @inlinable
  public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

  /// The squared Euclidean norm `w² + x² + y² + z²`.
  @inlinable
  public var lengthSquared: Double { w * w + x * x + y * y + z * z }

  /// The Euclidean norm.
  @inlinable
  public var length: Double { lengthSquared.squareRoot() }

  /// Whether all four components are finite.
  @inlinable
  public var isFinite: Bool { w.isFinite && x.isFinite && y.isFinite && z.isFinite }

  /// This quaternion scaled to unit length; the identity when the length is zero or not finite, so
  /// that a degenerate value can never poison a filter's state.
  @inlinable
  public var normalized: Quaternion {
    let n = length
    guard n > 0, n.isFinite else { return .identity }
    let inverse = 1 / n
    return Quaternion(w: w * inverse, x: x * inverse, y: y * inverse, z: z * inverse)
  }

  /// The four-dimensional dot product.
  @inlinable
  public func dot(_ other: Quaternion) -> Double {
    w * other.w + x * other.x + y * other.y + z * other.z
  }

  /// The same rotation with a non-negative real part (one representative of the double cover).
  @inlinable
  public var canonicalized: Quaternion { w < 0 ? -self : self }

  /// The Hamilton product. For rotations, `(a * b).act(on: v) == a.act(on: b.act(on: v))`, so frame
  /// names chain: `earthFromBody = earthFromSensor * sensorFromBody`.
  @inlinable
  public static func * (lhs: Quaternion, rhs: Quaternion) -> Quaternion {
    Quaternion(
      w: lhs.w * rhs.w - lhs.x * rhs.x - lhs.y * rhs.y - lhs.z * rhs.z,
      x: lhs.w * rhs.x + lhs.x * rhs.w + lhs.y * rhs.z - lhs.z * rhs.y,
      y: lhs.w * rhs.y - lhs.x * rhs.z + lhs.y * rhs.w + lhs.z * rhs.x,
      z: lhs.w * rhs.z + lhs.x * rhs.y - lhs.y * rhs.x + lhs.z * rhs.w)
  }

  /// Component-wise negation (the same rotation).
  @inlinable
  public static prefix func - (q: Quaternion) -> Quaternion {
    Quaternion(w: -q.w, x: -q.x, y: -q.y, z: -q.z)
  }

  /// Component-wise sum.
  @inlinable
  public static func + (lhs: Quaternion, rhs: Quaternion) -> Quaternion {
    Quaternion(w: lhs.w + rhs.w, x: lhs.x + rhs.x, y: lhs.y + rhs.y, z: lhs.z + rhs.z)
  }

  /// Scales every component.
  @inlinable
  public static func * (lhs: Double, rhs: Quaternion) -> Quaternion {
    Quaternion(w: lhs * rhs.w, x: lhs * rhs.x, y: lhs * rhs.y, z: lhs * rhs.z)
  }
}

extension Quaternion: CustomStringConvertible {
  public var description: String { "Quaternion(w: \(w), x: \(x), y: \(y), z: \(z))" }
}
