// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A second-order Butterworth low-pass filter (``SecondOrderButterworth``) for three channels (one
/// vector), in transposed direct form II, with a warm start: the first `warmUpCount` outputs are
/// the running mean of the inputs, after which the filter continues from the steady state of that
/// mean.
///
/// The warm start matters because the filters run on signals that start far from zero (gravity,
/// the gyroscope bias); a cold filter would need several time constants to forget its zero state.
struct LowPassFilter3: Sendable {
  /// Numerator (b0, b1, b2) and denominator (a1, a2; a0 = 1) coefficients.
  let b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
  /// Number of samples averaged before the recursive filter takes over.
  let warmUpCount: Int

  private(set) var output = SIMD3<Double>.zero
  private var s1 = SIMD3<Double>.zero
  private var s2 = SIMD3<Double>.zero
  private var count = 0

  /// A filter with time constant `timeConstant` (s), i.e. cutoff `√2 / (2π τ)` Hz, for samples
  /// `samplePeriod` seconds apart. A non-positive time constant gives a pass-through filter.
  init(timeConstant: Double, samplePeriod: Double) {
    guard timeConstant > 0 else {
      (b0, b1, b2, a1, a2) = (1, 0, 0, 0, 0)
      warmUpCount = 0
      return
    }
    let cutoff = 2.0.squareRoot() / (2 * Double.pi * timeConstant)
    // Bilinear transform with pre-warping; clamp the cutoff below Nyquist.
    let k = Double.tan(Double.pi * Swift.min(cutoff * samplePeriod, 0.49))
    let design = SecondOrderButterworth.lowPass(prewarpedCutoff: k)
    (b0, b1, b2, a1, a2) = (design.b0, design.b1, design.b2, design.a1, design.a2)
    // The sample period comes from a file header or from timestamps: an absurd rate (1e20 Hz, or
    // timestamps 1e-20 s apart) must not trap, so the ratio is clamped in floating point (NaN → 1).
    let ratio = (timeConstant / samplePeriod).rounded()
    warmUpCount = ratio.isNaN ? 1 : Int(Swift.min(Swift.max(ratio, 1), Self.maximumWarmUpCount))
  }

  /// The longest warm-up in samples (a minute at 100 kHz); longer warm-ups only come from absurd
  /// rates.
  static let maximumWarmUpCount: Double = 6_000_000

  /// Whether the warm-up averaging is over.
  var isWarm: Bool { count >= warmUpCount }

  /// Filters one input vector and returns the new output.
  @inline(__always)
  mutating func update(_ x: SIMD3<Double>) -> SIMD3<Double> {
    if count < warmUpCount {
      count += 1
      output += (x - output) / Double(count)
      if count == warmUpCount {
        // Steady state for a constant input equal to the mean (DC gain is one).
        s2 = (b2 - a2) * output
        s1 = (b1 - a1) * output + s2
      }
      return output
    }
    let y = b0 * x + s1
    s1 = b1 * x - a1 * y + s2
    s2 = b2 * x - a2 * y
    output = y
    return y
  }

  /// Sets the filter to the steady state of a constant input `x`, skipping any warm-up.
  mutating func reset(to x: SIMD3<Double>) {
    count = warmUpCount
    output = x
    s2 = (b2 - a2) * x
    s1 = (b1 - a1) * x + s2
  }

  /// Forgets everything; the next input starts a new warm-up.
  mutating func reset() {
    count = 0
    output = .zero
    s1 = .zero
    s2 = .zero
  }
}
