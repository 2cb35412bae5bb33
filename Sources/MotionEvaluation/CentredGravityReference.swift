// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The gravity direction a recording implies by itself, after the fact: for each sample, the
/// mean specific force over a window centred on it, carried into that sample's sensor frame by
/// the integrated gyroscope.
///
/// Why it is a reference: over a window of `T` seconds the mean specific force in a non-rotating
/// frame is gravity plus `Δv/T`, the change of the device's velocity over the window divided by
/// its length. For someone standing, sitting or walking at a steady pace that change is close to
/// zero (0.5 m/s over 5 s tilts the mean by 0.6°), and the gyroscope carries the samples of a
/// few seconds into one frame with little error when its bias is already removed (MotionSense's
/// rotation rate is Apple's bias-corrected one: 0.05°/s over 2.5 s is 0.1°). It needs no optical
/// system and no other filter's output, and it is non-causal: a causal filter cannot see the
/// second half of the window, so this measures how close a real-time gravity estimate comes to
/// what the whole recording shows. It is wrong where the velocity changes for seconds (starting,
/// stopping, a lift), so compare medians, not extremes.
///
/// Value type, streaming: one entry per sample in a ring of `2 × halfWidth + 1`, allocated in
/// `init`; ``append(rate:interval:specificForce:estimates:)`` allocates nothing. The reference
/// is best computed at the recording's own rate: estimates from a decimated run are attached to
/// the samples whose instants they describe, and the others carry none.
package struct CentredGravityReference {
  /// One sample kept until the window centred on it is complete.
  struct Entry {
    /// The orientation integrated from the gyroscope up to this sample, sensor to a
    /// non-rotating frame fixed at the recording's start.
    var inertialFromSensor = Quaternion.identity
    /// The sample's specific force in that non-rotating frame, m/s².
    var force = SIMD3<Double>.zero
    /// The gravity directions to compare with the reference (sensor frame, any length), if this
    /// sample has them.
    var estimates: (SIMD3<Double>, SIMD3<Double>)? = nil
  }

  /// The angles of one centre sample's estimates to the reference, degrees.
  package struct Comparison: Equatable {
    package var first: Double
    package var second: Double
  }

  /// Samples on each side of the centre.
  package let halfWidth: Int
  private var ring: [Entry]
  /// Index in `ring` of the oldest entry.
  private var oldest = 0
  private var count = 0
  private var forceSum = SIMD3<Double>.zero
  private var inertialFromSensor = Quaternion.identity
  private var previousRate: SIMD3<Double>?

  /// A reference over windows of `2 × halfWidth + 1` samples; `halfWidth` is clamped to
  /// 1…4096.
  package init(halfWidth: Int) {
    let h = Swift.min(Swift.max(halfWidth, 1), 4096)
    self.halfWidth = h
    ring = Array(repeating: Entry(), count: 2 * h + 1)
  }

  /// A reference over windows of about `windowDuration` seconds at `samplePeriod` seconds per
  /// sample (2.5 s on each side for a 5 s window); a period that is not a positive finite number
  /// gives the smallest window.
  package init(windowDuration: Double, samplePeriod: Double) {
    let half = windowDuration / 2 / samplePeriod
    let halfWidth = half.isFinite && half >= 1 ? Int(Swift.min(half, 4096).rounded()) : 1
    self.init(halfWidth: halfWidth)
  }

  /// Adds one sample: its bias-corrected `rate` (rad/s, sensor frame), the time since the
  /// previous sample (`interval`, s), its `specificForce` (m/s², sensor frame) and, if any, two gravity
  /// `estimates` for its instant to compare. Returns, once the window centred on an earlier
  /// sample is complete, that sample's estimates' angles to the reference (degrees); `nil` while
  /// the first window fills, for a sample without estimates, or when an angle is undefined (a
  /// zero vector).
  package mutating func append(
    rate: SIMD3<Double>, interval: Double, specificForce: SIMD3<Double>,
    estimates: (SIMD3<Double>, SIMD3<Double>)?
  ) -> Comparison? {
    let capacity = ring.count
    let slot = (oldest + count) % capacity
    if count == capacity {
      forceSum -= ring[oldest].force
      oldest = (oldest + 1) % capacity
      count -= 1
    }
    // The rotation since the previous sample from the mean of the two rates (the trapezoidal
    // rule): rate samples are instants, and integrating each one over the interval after (or
    // before) it would put every orientation half an interval behind (or ahead of) its sample's
    // instant, ω·T/2 of rotation, 1° at 100°/s and 50 Hz.
    if let previousRate {
      let step = (previousRate + rate) * (0.5 * interval)
      if step.isFinite {
        inertialFromSensor = (inertialFromSensor * Quaternion(rotationVector: step)).normalized
      }
    }
    previousRate = rate
    let force = inertialFromSensor.act(on: specificForce)
    ring[slot] = Entry(inertialFromSensor: inertialFromSensor, force: force, estimates: estimates)
    forceSum += force
    count += 1
    guard count == capacity else { return nil }

    let centre = ring[(oldest + halfWidth) % capacity]
    guard let estimates = centre.estimates else { return nil }
    // Gravity points against the mean specific force.
    let down = -centre.inertialFromSensor.conjugate.act(on: forceSum)
    guard let first = Self.angle(down, estimates.0), let second = Self.angle(down, estimates.1)
    else { return nil }
    return Comparison(first: first, second: second)
  }

  /// The angle between `a` and `b` in degrees, or `nil` when either is (almost) zero.
  static func angle(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double? {
    let denominator = (a.lengthSquared * b.lengthSquared).squareRoot()
    guard denominator > 1e-12, denominator.isFinite else { return nil }
    let cosine = Swift.min(1, Swift.max(-1, (a * b).sum() / denominator))
    return Double.acos(cosine) / Units.radiansPerDegree
  }
}
