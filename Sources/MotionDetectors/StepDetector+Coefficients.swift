// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension StepDetector {
  /// Values derived once from ``Parameters``: filter coefficients and lag bounds in grid samples.
  struct Coefficients: Sendable, Equatable {
    var gridPeriod: Double
    var highPass: Biquad
    var lowPass: Biquad
    var fastHighPass: Biquad
    /// Per-grid-sample smoothing factors of the running mean square and autocorrelation.
    var energyFactor: Double
    var periodicityFactor: Double
    var shortestLag: Int
    var longestLag: Int
    /// How often (grid samples) the period is re-estimated.
    var periodUpdateInterval: Int
    /// ``Parameters/implausibleAcceleration`` in m/s² (the detector works on |a| in m/s²), clamped
    /// as that parameter documents: an unbounded setting let one 1e154 g sample overflow the
    /// squares in the energy and autocorrelation, which then stayed infinite or NaN for good.
    var implausibleMagnitude: Double
    /// ``Parameters/longestInputGap``, s, clamped to 0...``longestInputGapLimit`` (NaN: the
    /// default). The grid is filled by interpolation up to the next sample, so this bounds that
    /// loop: an infinite setting walked a 1e9 s gap one grid period at a time.
    var longestInputGap: Double
    /// ``Parameters/stridesPerCheck`` clamped to 1...``mostStridesPerCheck``.
    var stridesPerCheck: Int

    /// The most strides compared at once (it sizes the stride buffer and the queue).
    static let mostStridesPerCheck = 8

    /// The most ``Parameters/implausibleAcceleration`` can be, g: a high-g sensor's range
    /// (±200–400 g) with room to spare, and far from overflow (its square is 1e8 (m/s²)²).
    static let largestImplausibleAcceleration = 1000.0
    /// The most ``Parameters/longestInputGap`` can be, s: four times the longest stride lag, far
    /// longer than any interpolation can stand for a step, and at most 4 001 grid samples.
    static let longestInputGapLimit = 10.0

    init(_ parameters: Parameters) {
      let rate = parameters.gridRate.isFinite ? min(max(parameters.gridRate, 10), 400) : 50
      gridPeriod = 1 / rate
      highPass = Biquad(highPassCutoff: parameters.bandLow, sampleRate: rate)
      lowPass = Biquad(lowPassCutoff: parameters.bandHigh, sampleRate: rate)
      fastHighPass = Biquad(highPassCutoff: parameters.highFrequencyCutoff, sampleRate: rate)
      energyFactor = Self.factor(parameters.energyTimeConstant, rate)
      periodicityFactor = Self.factor(parameters.periodicityTimeConstant, rate)
      shortestLag = Self.lag(parameters.shortestStrideLag, rate, fallback: 20)
      longestLag = max(shortestLag + 2, Self.lag(parameters.longestStrideLag, rate, fallback: 125))
      periodUpdateInterval = max(1, Int((rate / 5).rounded()))
      let acceleration = parameters.implausibleAcceleration
      let largest = Self.largestImplausibleAcceleration
      // NaN: the default; zero, negative (once "off"), infinite or beyond the limit: the limit.
      let limit =
        acceleration.isNaN
        ? Parameters.default.implausibleAcceleration
        : acceleration > 0 ? min(acceleration, largest) : largest
      implausibleMagnitude = limit * StepDetector.standardGravity
      let gap = parameters.longestInputGap
      longestInputGap =
        gap.isNaN ? Parameters.default.longestInputGap : min(max(gap, 0), Self.longestInputGapLimit)
      stridesPerCheck = min(max(parameters.stridesPerCheck, 1), Self.mostStridesPerCheck)
    }

    private static func factor(_ timeConstant: Double, _ rate: Double) -> Double {
      guard timeConstant.isFinite, timeConstant > 0 else { return 1 }
      return min(1, 1 / (timeConstant * rate))
    }

    /// A lag in grid samples, clamped to 1...1000 so a hostile parameter cannot size the buffers.
    private static func lag(_ seconds: Double, _ rate: Double, fallback: Int) -> Int {
      let samples = seconds * rate
      guard samples.isFinite else { return fallback }
      return Int(min(max(samples.rounded(), 1), 1000))
    }
  }

  /// A second-order Butterworth section (bilinear transform, pre-warped cut-off), transposed
  /// direct form II. Coefficients and the two state values live together: it is tiny.
  struct Biquad: Sendable, Equatable {
    var b0, b1, b2, a1, a2: Double
    var z1 = 0.0, z2 = 0.0

    init(lowPassCutoff cutoff: Double, sampleRate: Double) {
      let k = Self.warped(cutoff, sampleRate)
      let norm = 1 / (1 + 2.0.squareRoot() * k + k * k)
      b0 = k * k * norm
      b1 = 2 * b0
      b2 = b0
      a1 = 2 * (k * k - 1) * norm
      a2 = (1 - 2.0.squareRoot() * k + k * k) * norm
    }

    init(highPassCutoff cutoff: Double, sampleRate: Double) {
      let k = Self.warped(cutoff, sampleRate)
      let norm = 1 / (1 + 2.0.squareRoot() * k + k * k)
      b0 = norm
      b1 = -2 * norm
      b2 = norm
      a1 = 2 * (k * k - 1) * norm
      a2 = (1 - 2.0.squareRoot() * k + k * k) * norm
    }

    /// `tan(π f / fs)` with the cut-off kept inside (0, Nyquist).
    private static func warped(_ cutoff: Double, _ rate: Double) -> Double {
      let fraction = cutoff.isFinite ? min(max(cutoff / rate, 1e-4), 0.45) : 0.05
      return Double.tan(Double.pi * fraction)
    }

    /// Sets the state to the steady state for a constant input `x`.
    mutating func settle(at x: Double) {
      let gain = (b0 + b1 + b2) / (1 + a1 + a2)
      let y = gain * x
      z1 = y - b0 * x  // from y = b0 x + z1
      z2 = b2 * x - a2 * y
    }

    mutating func process(_ x: Double) -> Double {
      let y = b0 * x + z1
      z1 = b1 * x - a1 * y + z2
      z2 = b2 * x - a2 * y
      return y
    }
  }
}
