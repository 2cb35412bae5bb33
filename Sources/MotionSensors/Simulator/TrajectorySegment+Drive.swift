// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A drive's path: its heading through the turns, its velocity, and the horizontal displacement
/// integrated once at layout (``TrajectorySegment/DriveParameters/knots``) and between knots on demand.
extension TrajectorySegment {
  /// The horizontal velocity of a drive at local time `t`, m/s, earth frame.
  static func driveVelocity(
    _ d: DriveParameters, _ t: Double, duration: Double
  ) -> SIMD3<Double> {
    let speed = d.speed * SmoothProfile.window(t, duration: duration, ramp: d.ramp).value
    let heading = driveHeading(d, t).value
    return speed * (Double.cos(heading) * d.forward + Double.sin(heading) * d.left)
  }

  /// The heading change (radians, counter-clockwise) of a drive at local time `t`, as a jet.
  @inline(__always)
  static func driveHeading(_ d: DriveParameters, _ t: Double) -> Jet {
    var heading = Jet.zero
    for turn in d.turns {
      heading =
        heading + (turn.angle * Units.radiansPerDegree)
        * SmoothProfile.smoothstep(t - turn.start, duration: turn.duration)
    }
    return heading
  }

  /// The integral of `velocity` over `[a, b]` (five-point Gauss–Legendre: exact for degree 9, so
  /// far below a millimetre over a 0.1 s interval of smooth driving).
  static func gaussIntegral(
    _ d: DriveParameters, from a: Double, to b: Double, duration: Double
  )
    -> SIMD3<Double>
  {
    let nodes = (0.0, 0.538_469_310_105_683_1, 0.906_179_845_938_664_0)
    let weights = (0.568_888_888_888_888_9, 0.478_628_670_499_366_5, 0.236_926_885_056_189_1)
    let half = (b - a) / 2
    let mid = (a + b) / 2
    var sum = weights.0 * driveVelocity(d, mid, duration: duration)
    sum +=
      weights.1
      * (driveVelocity(d, mid - half * nodes.1, duration: duration)
        + driveVelocity(d, mid + half * nodes.1, duration: duration))
    sum +=
      weights.2
      * (driveVelocity(d, mid - half * nodes.2, duration: duration)
        + driveVelocity(d, mid + half * nodes.2, duration: duration))
    return half * sum
  }

  /// The most knots a drive is integrated at: a drive longer than an hour at 0.1 s gets longer
  /// spacing instead of more knots, so its layout takes at most about a megabyte.
  static let maximumKnotCount = 36_001

  /// The knot spacing for a drive of `duration` seconds: 0.1 s, longer for drives over an hour.
  static func knotSpacing(forDriveOf duration: Double) -> Double {
    Swift.max(0.1, duration / Double(maximumKnotCount - 1))
  }

  /// The displacement at every knot. The count is bounded whatever `duration` is: a non-finite or
  /// negative duration (a segment laid out without validation) gives the start alone.
  static func integrateDrive(_ d: DriveParameters, duration: Double) -> [SIMD3<Double>] {
    let spans = (duration / d.knotSpacing).rounded(.up)
    guard spans.isFinite, spans >= 1 else { return [.zero] }
    let count = Int(Swift.min(spans, Double(maximumKnotCount - 1))) + 1
    var knots = [SIMD3<Double>](repeating: .zero, count: count)
    for k in 1..<count {
      let a = Double(k - 1) * d.knotSpacing
      knots[k] = knots[k - 1] + gaussIntegral(d, from: a, to: a + d.knotSpacing, duration: duration)
    }
    return knots
  }
}
