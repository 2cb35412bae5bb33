// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The simulator's seeded random number generator: SplitMix64 (Steele, Lea & Flood 2014) with
/// Gaussian deviates by the Box–Muller transform. Equal seeds give equal sequences on every
/// platform, which is what makes simulations reproducible.
struct SimulatorRandom: RandomNumberGenerator, Sendable {
  private var state: UInt64
  /// Box–Muller yields deviates in pairs; the second waits here.
  private var spareGaussian: Double?

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform deviate in (0, 1] with 53 random bits.
  @inline(__always)
  mutating func nextUnitInterval() -> Double {
    Double((next() >> 11) + 1) * 0x1p-53
  }

  /// A standard normal deviate.
  @inline(__always)
  mutating func nextGaussian() -> Double {
    if let spare = spareGaussian {
      spareGaussian = nil
      return spare
    }
    let radius = (-2 * Double.log(nextUnitInterval())).squareRoot()
    let angle = 2 * Double.pi * nextUnitInterval()
    spareGaussian = radius * Double.sin(angle)
    return radius * Double.cos(angle)
  }

  /// Three independent standard normal deviates.
  @inline(__always)
  mutating func nextGaussianVector() -> SIMD3<Double> {
    SIMD3(nextGaussian(), nextGaussian(), nextGaussian())
  }
}
