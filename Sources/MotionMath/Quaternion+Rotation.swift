// SPDX-License-Identifier: Apache-2.0

extension Quaternion {
  /// The rotation by `angle` radians about `axis` (right-hand rule). The axis need not be unit
  /// length; a zero axis gives the identity.
  @inlinable
  public init(angle: Double, axis: SIMD3<Double>) {
    let n = axis.length
    guard n > 0 else {
      self = .identity
      return
    }
    let half = 0.5 * angle
    let s = Double.sin(half) / n
    self.init(w: Double.cos(half), x: axis.x * s, y: axis.y * s, z: axis.z * s)
  }

  /// The rotation whose axis is `rotationVector`'s direction and whose angle is its length in
  /// radians (the exponential map). Accurate for tiny angles as well.
  @inlinable
  public init(rotationVector v: SIMD3<Double>) {
    let angle = v.length
    if angle < 1e-8 {
      // sin(θ/2)/θ ≈ 1/2 − θ²/48; the quadratic term is below double precision here.
      let q = Quaternion(w: 1 - angle * angle / 8, x: 0.5 * v.x, y: 0.5 * v.y, z: 0.5 * v.z)
      self = q.normalized
    } else {
      self.init(angle: angle, axis: v)
    }
  }

  /// The rotation vector (axis × angle, radians) of this unit quaternion, the angle in [0, π].
  @inlinable
  public var rotationVector: SIMD3<Double> {
    let q = canonicalized
    let s = q.imaginary.length
    guard s > 1e-12 else { return 2 * q.imaginary }
    let angle = 2 * Double.atan2(s, q.w)
    return q.imaginary * (angle / s)
  }

  /// The rotation angle of this unit quaternion in radians, in [0, π].
  @inlinable
  public var angle: Double {
    2 * Double.atan2(imaginary.length, Swift.abs(w))
  }

  /// The angle in radians, in [0, π], of the rotation that takes `self` to `other`; treats `q` and
  /// `-q` as the same rotation.
  @inlinable
  public func angle(to other: Quaternion) -> Double {
    (conjugate * other).angle
  }

  /// Rotates `v` by this unit quaternion: `q ⊗ (0, v) ⊗ q*`.
  @inlinable
  public func act(on v: SIMD3<Double>) -> SIMD3<Double> {
    // v' = v + 2w(u × v) + 2 u × (u × v), with u the imaginary part; 18 multiplications.
    let u = imaginary
    let t = 2 * u.cross(v)
    return v + w * t + u.cross(t)
  }

  /// The shortest rotation that turns direction `from` into direction `to` (neither need be unit
  /// length). For opposite directions it picks a half turn about an axis perpendicular to `from`.
  public init(rotating from: SIMD3<Double>, to: SIMD3<Double>) {
    let a = from.normalized
    let b = to.normalized
    let d = a.dot(b)
    if d < -1 + 1e-12 {
      // Any perpendicular axis will do; use the one least aligned with `a`.
      let helper: SIMD3<Double> = Swift.abs(a.x) < 0.9 ? SIMD3(1, 0, 0) : SIMD3(0, 1, 0)
      self.init(angle: .pi, axis: a.cross(helper))
      return
    }
    let c = a.cross(b)
    self = Quaternion(w: 1 + d, x: c.x, y: c.y, z: c.z).normalized
  }

  /// The rotation about the vertical (z) axis by `angle` radians.
  @inlinable
  public static func aboutZ(_ angle: Double) -> Quaternion {
    Quaternion(w: Double.cos(0.5 * angle), x: 0, y: 0, z: Double.sin(0.5 * angle))
  }

  /// Spherical linear interpolation from `self` (t = 0) to `other` (t = 1) along the shorter arc.
  public func slerp(to other: Quaternion, fraction t: Double) -> Quaternion {
    var target = other
    var cosine = dot(other)
    if cosine < 0 {
      target = -other
      cosine = -cosine
    }
    if cosine > 0.9995 {
      return ((1 - t) * self + t * target).normalized
    }
    let theta = Double.acos(Swift.min(cosine, 1))
    let s = Double.sin(theta)
    let a = Double.sin((1 - t) * theta) / s
    let b = Double.sin(t * theta) / s
    return (a * self + b * target).normalized
  }
}
