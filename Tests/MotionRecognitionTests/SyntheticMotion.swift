// SPDX-License-Identifier: Apache-2.0

import MotionMath
import MotionRecognition
import _MotionTestSupport

/// Builds synthetic accelerometer streams (g, Core Motion's sign) for the recogniser tests.
struct SyntheticMotion {
  /// Samples per second.
  var sampleRate = 100.0
  /// Standard deviation of white noise added to every axis, g (a phone accelerometer is ~0.005 g).
  var noise = 0.005
  var generator: SplitMix64

  init(seed: UInt64, sampleRate: Double = 100, noise: Double = 0.005) {
    self.generator = SplitMix64(seed: seed)
    self.sampleRate = sampleRate
    self.noise = noise
  }

  /// Samples from `start` for `duration` seconds: gravity from `gravity(t)`, user acceleration from
  /// `user(t)` (both g, Core Motion's sign), plus noise. Gravity/user fields are left empty so the
  /// recognisers must separate them themselves unless `deviceMotion` is true.
  mutating func samples(
    from start: Double = 0, duration: Double,
    gravity: (Double) -> SIMD3<Double> = { _ in SIMD3(0, 0, -1) },
    user: (Double) -> SIMD3<Double> = { _ in .zero },
    attitude: ((Double) -> Quaternion)? = nil,
    deviceMotion: Bool = false
  ) -> [MotionInput] {
    let count = Int((duration * sampleRate).rounded())
    var result: [MotionInput] = []
    result.reserveCapacity(count)
    for i in 0..<count {
      let t = start + Double(i) / sampleRate
      let g = gravity(t)
      let u = user(t)
      let n =
        SIMD3(generator.nextGaussian(), generator.nextGaussian(), generator.nextGaussian()) * noise
      if deviceMotion {
        result.append(
          MotionInput(timestamp: t, gravity: g, userAcceleration: u + n, attitude: attitude?(t)))
      } else {
        result.append(MotionInput(timestamp: t, acceleration: g + u + n, attitude: attitude?(t)))
      }
    }
    return result
  }
}

/// A smooth pulse: one full sine lobe of `amplitude` lasting `width` seconds from `start`, else 0.
func lobe(_ t: Double, start: Double, width: Double, amplitude: Double) -> Double {
  guard t >= start, t < start + width else { return 0 }
  return amplitude * Double.sin(.pi * (t - start) / width)
}

/// Kinematic acceleration of a sharp move: a start lobe then an opposite stop lobe with equal
/// impulse, so the device ends at rest. Returned in Core Motion's sign (the negation).
func sharpMove(
  _ t: Double, start: Double, direction: SIMD3<Double>, startPeak: Double, startWidth: Double,
  stopWidth: Double
) -> SIMD3<Double> {
  // Equal impulses: peak × width is the same for both lobes (sine lobes, same shape).
  let stopPeak = startPeak * startWidth / stopWidth
  let kinematic =
    lobe(t, start: start, width: startWidth, amplitude: startPeak)
    - lobe(t, start: start + startWidth, width: stopWidth, amplitude: stopPeak)
  return -kinematic * direction
}
