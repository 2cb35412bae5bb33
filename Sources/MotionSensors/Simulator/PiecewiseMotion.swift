// SPDX-License-Identifier: Apache-2.0

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
