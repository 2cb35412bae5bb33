// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Smooth scalar building blocks for trajectories: easing curves, windows and bumps whose first
/// and second derivatives vanish where they join a constant, so that the composed position is C²
/// and the attitude C¹.
enum SmoothProfile {
  /// The quintic smoothstep `6u⁵ − 15u⁴ + 10u³` of `t/duration`, clamped to [0, 1], as a jet of `t`.
  ///
  /// Its first and second derivatives are zero at both ends, which is what makes segment joins C².
  @inline(__always)
  static func smoothstep(_ t: Double, duration: Double) -> Jet {
    guard duration > 0 else { return Jet(t >= 0 ? 1 : 0) }
    if t <= 0 { return Jet(0) }
    if t >= duration { return Jet(1) }
    let u = t / duration
    let u2 = u * u
    let u3 = u2 * u
    let value = u3 * (10 + u * (-15 + 6 * u))
    let d1 = 30 * u2 * (1 - u) * (1 - u) / duration
    let d2 = 60 * u * (1 - u) * (1 - 2 * u) / (duration * duration)
    return Jet(value, d1, d2)
  }

  /// The integral of the quintic smoothstep from 0 to `u` (in units of `u`): `u⁶ − 3u⁵ + 5u⁴/2`.
  @inline(__always)
  static func smoothstepIntegral(_ u: Double) -> Double {
    let v = Swift.min(Swift.max(u, 0), 1)
    let v4 = v * v * v * v
    return v4 * (2.5 + v * (-3 + v)) + Swift.max(u - 1, 0)
  }

  /// A plateau window of length `duration` that rises from 0 to 1 over `ramp` seconds and falls
  /// back over the last `ramp` seconds (quintic easing), as a jet of `t`. Zero outside.
  @inline(__always)
  static func window(_ t: Double, duration: Double, ramp: Double) -> Jet {
    let r = Swift.min(ramp, duration / 2)
    if t <= 0 || t >= duration { return .zero }
    if t < r { return smoothstep(t, duration: r) }
    if t > duration - r {
      let s = smoothstep(duration - t, duration: r)
      return Jet(s.value, -s.rate, s.acceleration)
    }
    return Jet(1)
  }

  /// The integral of ``window(_:duration:ramp:)`` from 0 to `t`, in seconds.
  @inline(__always)
  static func windowIntegral(_ t: Double, duration: Double, ramp: Double) -> Double {
    let r = Swift.min(ramp, duration / 2)
    let total = duration - r
    if t <= 0 { return 0 }
    if t >= duration { return total }
    guard r > 0 else { return t }
    if t < r { return r * smoothstepIntegral(t / r) }
    if t > duration - r { return total - r * smoothstepIntegral((duration - t) / r) }
    return r / 2 + (t - r)
  }
}

/// A polynomial in local time with real coefficients, lowest degree first.
struct Polynomial {
  var coefficients: [Double]

  init(_ coefficients: [Double]) {
    self.coefficients = coefficients.isEmpty ? [0] : coefficients
  }

  static func constant(_ c: Double) -> Polynomial { Polynomial([c]) }

  /// The polynomial `p(τ / scale)`.
  func scaledArgument(by scale: Double) -> Polynomial {
    var factor = 1.0
    var result = coefficients
    for i in result.indices {
      result[i] *= factor
      factor /= scale
    }
    return Polynomial(result)
  }

  static func + (a: Polynomial, b: Polynomial) -> Polynomial {
    var result = [Double](repeating: 0, count: Swift.max(a.coefficients.count, b.coefficients.count))
    for (i, c) in a.coefficients.enumerated() { result[i] += c }
    for (i, c) in b.coefficients.enumerated() { result[i] += c }
    return Polynomial(result)
  }

  static func * (k: Double, p: Polynomial) -> Polynomial {
    Polynomial(p.coefficients.map { k * $0 })
  }

  /// The antiderivative that equals `constant` at 0.
  func integral(constant: Double) -> Polynomial {
    var result = [constant]
    for (i, c) in coefficients.enumerated() { result.append(c / Double(i + 1)) }
    return Polynomial(result)
  }

  /// The value at `t` (Horner's scheme).
  @inline(__always)
  func callAsFunction(_ t: Double) -> Double {
    var result = 0.0
    var i = coefficients.count - 1
    while i >= 0 {
      result = result * t + coefficients[i]
      i -= 1
    }
    return result
  }

  /// `6u⁵ − 15u⁴ + 10u³` with `u = τ/duration`.
  static func smoothstep(duration: Double) -> Polynomial {
    Polynomial([0, 0, 0, 10, -15, 6]).scaledArgument(by: duration)
  }

  /// The bump `30u²(1 − u)²` with `u = τ/duration`: zero with zero slope at both ends, unit area
  /// over u ∈ [0, 1] (so `duration` seconds of it have area `duration`).
  static func bump(duration: Double) -> Polynomial {
    Polynomial([0, 0, 30, -60, 30]).scaledArgument(by: duration)
  }
}

/// A one-dimensional motion given by its acceleration as consecutive polynomial pieces, integrated
/// exactly into velocity and position (both start at zero). Used for impulsive motions (taps, free
/// fall and catch) that sums of sinusoids describe badly.
struct PiecewiseMotion {
  private struct Piece {
    var start: Double
    var end: Double
    var acceleration: Polynomial
    var velocity: Polynomial
    var position: Polynomial
  }

  private var pieces: [Piece] = []

  /// The time at which the last piece ends.
  var end: Double { pieces.last?.end ?? 0 }

  /// Velocity at the end of the last piece.
  var finalVelocity: Double {
    guard let last = pieces.last else { return 0 }
    return last.velocity(last.end - last.start)
  }

  init() {}

  /// Appends a piece lasting `duration` seconds whose acceleration is `acceleration(τ)` in local
  /// time τ ∈ [0, duration]. Velocity and position continue from the previous piece.
  mutating func append(duration: Double, acceleration: Polynomial) {
    let start = end
    let (v0, p0): (Double, Double)
    if let last = pieces.last {
      let tau = last.end - last.start
      v0 = last.velocity(tau)
      p0 = last.position(tau)
    } else {
      (v0, p0) = (0, 0)
    }
    let velocity = acceleration.integral(constant: v0)
    pieces.append(
      Piece(
        start: start, end: start + duration, acceleration: acceleration, velocity: velocity,
        position: velocity.integral(constant: p0)))
  }

  /// Position, velocity and acceleration at time `t` as a jet; beyond the end the motion coasts at
  /// its final velocity with zero acceleration (callers end at rest).
  func callAsFunction(_ t: Double) -> Jet {
    guard !pieces.isEmpty, t > 0 else { return .zero }
    for piece in pieces where t <= piece.end {
      let tau = t - piece.start
      return Jet(piece.position(tau), piece.velocity(tau), piece.acceleration(tau))
    }
    let last = pieces[pieces.count - 1]
    let tau = last.end - last.start
    let v = last.velocity(tau)
    return Jet(last.position(tau) + v * (t - last.end), v, 0)
  }
}
