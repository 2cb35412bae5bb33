// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A scalar function of time known with its first and second time derivatives at one instant.
///
/// The trajectory is written as sums and products of smooth closed-form pieces; carrying the
/// derivatives through the arithmetic (forward-mode differentiation to second order) gives exact
/// velocities, accelerations and angular rates with no finite-difference error.
struct Jet {
  /// The value.
  var value: Double
  /// The first derivative with respect to time.
  var rate: Double
  /// The second derivative with respect to time.
  var acceleration: Double

  @inline(__always)
  init(_ value: Double, _ rate: Double = 0, _ acceleration: Double = 0) {
    self.value = value
    self.rate = rate
    self.acceleration = acceleration
  }

  static let zero = Jet(0)

  @inline(__always)
  static func + (a: Jet, b: Jet) -> Jet {
    Jet(a.value + b.value, a.rate + b.rate, a.acceleration + b.acceleration)
  }

  @inline(__always)
  static func - (a: Jet, b: Jet) -> Jet {
    Jet(a.value - b.value, a.rate - b.rate, a.acceleration - b.acceleration)
  }

  @inline(__always)
  static func * (a: Jet, b: Jet) -> Jet {
    // Leibniz: (ab)'' = a''b + 2a'b' + ab''.
    Jet(
      a.value * b.value,
      a.rate * b.value + a.value * b.rate,
      a.acceleration * b.value + 2 * a.rate * b.rate + a.value * b.acceleration)
  }

  @inline(__always)
  static func * (k: Double, a: Jet) -> Jet {
    Jet(k * a.value, k * a.rate, k * a.acceleration)
  }

  /// `sin(2π·frequency·t + phase)` as a jet of `t` (frequency in Hz).
  @inline(__always)
  static func sinusoid(_ t: Double, frequency: Double, phase: Double = 0) -> Jet {
    let omega = 2 * Double.pi * frequency
    let s = Double.sin(omega * t + phase)
    let c = Double.cos(omega * t + phase)
    return Jet(s, omega * c, -omega * omega * s)
  }
}
