// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A small, fast, seedable random number generator (Steele, Lea & Flood's SplitMix64) for
/// reproducible tests. Never use `SystemRandomNumberGenerator` in tests: print the seed instead.
package struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// Creates a generator from a seed; equal seeds give equal sequences.
  package init(seed: UInt64) {
    state = seed
  }

  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A standard normal deviate (Box–Muller).
  package mutating func nextGaussian() -> Double {
    let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
    let u2 = Double.random(in: 0..<1, using: &self)
    return (-2 * Double.log(u1)).squareRoot() * Double.cos(2 * .pi * u2)
  }
}

extension SplitMix64 {
  /// A uniformly distributed unit quaternion (a normalised Gaussian 4-vector).
  package mutating func nextUnitQuaternion() -> Quaternion {
    Quaternion(w: nextGaussian(), x: nextGaussian(), y: nextGaussian(), z: nextGaussian())
      .normalized
  }

  /// A uniformly distributed unit vector.
  package mutating func nextUnitVector() -> SIMD3<Double> {
    SIMD3(nextGaussian(), nextGaussian(), nextGaussian()).normalized
  }
}
