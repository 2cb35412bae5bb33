// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension AttitudeEstimator {
  // MARK: - Gyroscope

  /// Integrates one rate sample over `dt` s, with the outputs extrapolated over the gyroscope's
  /// `delay` (s); returns the bias-corrected rate (rad/s).
  @inline(__always)
  mutating func integrateGyroscope(
    _ gyroscope: SIMD3<Double>, dt: Double, delay: Double
  ) -> SIMD3<Double> {
    let rate = gyroscope - state.gyroscopeBias
    if delay != 0 {
      state.outputPrediction = Self.exponential(rate * delay)
    }
    state.meanSquaredRate += coefficients.rateGain * (rate.lengthSquared - state.meanSquaredRate)
    let increment = rate * dt
    // A rate sample is the mean over its interval; when the axis turns within the interval the
    // rotation is not exp(mean·dt). The two-sample coning term (Bortz; Savage 1998) restores the
    // second-order part from the previous interval's increment: negligible at high rates, a
    // clear gain at 20–50 Hz during fast tumbling.
    let v = increment + Self.cross(state.previousIncrement, increment) * (1.0 / 12)
    state.previousIncrement = increment
    let q = Self.multiply(state.inertialFromSensor, Self.exponential(v))
    state.inertialFromSensor = Self.renormalized(q)
    return rate
  }

  @inline(__always)
  static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
  }

  /// The unit quaternion of rotation vector `v` (rad); a short series for the small angles of
  /// one sample step (error below 1e-12 for |v| < 0.05), the exact form otherwise.
  @inline(__always)
  static func exponential(_ v: SIMD3<Double>) -> Quaternion {
    let a2 = v.lengthSquared
    if a2 < 0.0025 {
      let w = 1 - a2 * 0.125 + a2 * a2 * (1.0 / 384)
      let s = 0.5 - a2 * (1.0 / 48) + a2 * a2 * (1.0 / 3840)
      return Quaternion(w: w, x: s * v.x, y: s * v.y, z: s * v.z)
    }
    return Quaternion(rotationVector: v)
  }

  /// Whether dip angles given by their sines `s` and `reference` differ by more than `tolerance`
  /// (rad), to first order: |Δs| > tolerance·cos(dip), compared squared (cos² = 1 − s², at
  /// least 1e-4).
  @inline(__always)
  static func dipDiffers(_ s: Double, _ reference: Double, tolerance: Double) -> Bool {
    let d = s - reference
    return d * d > tolerance * tolerance * Swift.max(1 - reference * reference, 1e-4)
  }

  /// `atan2(y, x)` for heading errors: near the positive x axis (|y/x| < 0.1, the usual case in
  /// steady state) the rational approximation `r(15 + 4r²)/(15 + 9r²)` of `atan r` (error below
  /// 3e-9 rad there), exact elsewhere — so large initial errors are removed exactly.
  @inline(__always)
  static func fastAtan2(_ y: Double, _ x: Double) -> Double {
    if x > 0 && Swift.abs(y) < 0.1 * x {
      let r = y / x
      let r2 = r * r
      return r * (15 + 4 * r2) / (15 + 9 * r2)
    }
    return Double.atan2(y, x)
  }

  /// `a ⊗ b`, spelled out so that it is always inlined in the per-sample path.
  @inline(__always) @usableFromInline
  static func multiply(_ a: Quaternion, _ b: Quaternion) -> Quaternion {
    Quaternion(
      w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
      x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
      y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
      z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
  }

  /// `q ⊗ (0, v) ⊗ q*` for a unit quaternion, always inlined.
  @inline(__always)
  static func rotate(_ q: Quaternion, _ v: SIMD3<Double>) -> SIMD3<Double> {
    let tx = 2 * (q.y * v.z - q.z * v.y)
    let ty = 2 * (q.z * v.x - q.x * v.z)
    let tz = 2 * (q.x * v.y - q.y * v.x)
    return SIMD3(
      v.x + q.w * tx + (q.y * tz - q.z * ty),
      v.y + q.w * ty + (q.z * tx - q.x * tz),
      v.z + q.w * tz + (q.x * ty - q.y * tx))
  }

  /// Pulls a quaternion whose length is already within rounding of one back to unit length with
  /// one Newton step for `1/√(|q|²)` (no square root or division); products of unit quaternions
  /// only need this.
  @inline(__always)
  static func renormalized(_ q: Quaternion) -> Quaternion {
    let s = 1.5 - 0.5 * q.lengthSquared
    return Quaternion(w: q.w * s, x: q.x * s, y: q.y * s, z: q.z * s)
  }
}
