// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A second-order Butterworth low-pass or high-pass filter, designed by the bilinear transform with
/// pre-warping so that the gain is exactly −3 dB at the cut-off frequency in Hz.
///
/// Compared with ``FirstOrderLowPassFilter`` it rolls off at 40 dB per decade instead of 20, which
/// separates gravity (near DC) from hand movement (a few Hz) more cleanly, at the price of a step
/// response that overshoots by about 4 % before settling. It runs as a transposed direct form II
/// biquad; the coefficients are computed in `Double` (see ``Coefficients``).
///
/// The first sample initialises the state to the steady state for that input (output equal to the
/// input for a low-pass, zero for a high-pass), so there is no start-up transient.
///
/// A sample with a NaN or infinite component is skipped: the state is kept and the current output
/// returned (before the first usable sample: the sample itself for a low-pass, zero for a
/// high-pass, as there is no output yet). Taken in, it would stay in the biquad's state and make
/// every later output NaN; inputs can be built by apps, and a sensor or a division upstream can
/// produce one.
public struct SecondOrderButterworthFilter<Value: FilterableValue>: Sendable {
  /// Which band the filter passes.
  public enum Kind: Sendable, Hashable {
    /// Passes frequencies below the cut-off; DC gain 1.
    case lowPass
    /// Passes frequencies above the cut-off; DC gain 0.
    case highPass
  }

  /// The normalised biquad coefficients `b0, b1, b2, a1, a2` (with `a0 = 1`).
  public struct Coefficients: Sendable, Hashable {
    public var b0: Double
    public var b1: Double
    public var b2: Double
    public var a1: Double
    public var a2: Double

    /// The Butterworth coefficients for `kind` with a −3 dB cut-off of `cutoffFrequency` Hz at
    /// `sampleRate` Hz.
    ///
    /// The analogue prototype `1 / (s² + √2 s + 1)` is mapped by the bilinear transform with the
    /// cut-off pre-warped to `K = tan(π f_c / f_s)`, which places the −3 dB point exactly at
    /// `f_c`. The cut-off is clamped below the Nyquist frequency.
    public init(kind: Kind, cutoffFrequency: Double, sampleRate: Double) {
      let omega = FilterCoefficients.normalizedAngularFrequency(cutoffFrequency, sampleRate)
      let k = Double.tan(omega / 2)
      let design: SecondOrderButterworth =
        switch kind {
        case .lowPass: .lowPass(prewarpedCutoff: k)
        case .highPass: .highPass(prewarpedCutoff: k)
        }
      (b0, b1, b2, a1, a2) = (design.b0, design.b1, design.b2, design.a1, design.a2)
    }

    /// The gain at DC, `(b0 + b1 + b2) / (1 + a1 + a2)`.
    public var dcGain: Double { (b0 + b1 + b2) / (1 + a1 + a2) }
  }

  /// The band the filter passes.
  public let kind: Kind
  /// The −3 dB frequency in Hz.
  public let cutoffFrequency: Double
  /// The sample rate in Hz.
  public let sampleRate: Double
  /// The filter's coefficients.
  public let coefficients: Coefficients
  /// The current output, or `nil` before the first sample.
  public private(set) var value: Value?

  private var state1: Value = .zero
  private var state2: Value = .zero

  /// Creates a filter of `kind` with a −3 dB cut-off of `cutoffFrequency` Hz for samples arriving
  /// at `sampleRate` Hz.
  public init(kind: Kind, cutoffFrequency: Double, sampleRate: Double) {
    self.kind = kind
    self.cutoffFrequency = cutoffFrequency
    self.sampleRate = sampleRate
    self.coefficients = Coefficients(
      kind: kind, cutoffFrequency: cutoffFrequency, sampleRate: sampleRate)
  }

  /// A low-pass filter with a −3 dB cut-off of `cutoffFrequency` Hz at `sampleRate` Hz.
  public static func lowPass(
    cutoffFrequency: Double, sampleRate: Double
  ) -> SecondOrderButterworthFilter {
    SecondOrderButterworthFilter(
      kind: .lowPass, cutoffFrequency: cutoffFrequency, sampleRate: sampleRate)
  }

  /// A high-pass filter with a −3 dB cut-off of `cutoffFrequency` Hz at `sampleRate` Hz.
  public static func highPass(
    cutoffFrequency: Double, sampleRate: Double
  ) -> SecondOrderButterworthFilter {
    SecondOrderButterworthFilter(
      kind: .highPass, cutoffFrequency: cutoffFrequency, sampleRate: sampleRate)
  }

  /// Filters one sample and returns the new output.
  @discardableResult
  public mutating func update(_ input: Value) -> Value {
    // A non-finite sample would poison the state for good: skip it (see the type's documentation).
    guard input.isFilterable else { return value ?? (kind == .lowPass ? input : .zero) }
    let c = coefficients
    if value == nil {
      // Steady state for a constant input x with DC gain G: y = G·x, s2 = (b2 − a2·G)·x,
      // s1 = (G − b0)·x. Starting there avoids ringing from an implicit zero history.
      let gain: Double = kind == .lowPass ? 1 : 0
      state2 = (c.b2 - c.a2 * gain) * input
      state1 = (gain - c.b0) * input
    }
    let output = c.b0 * input + state1
    state1 = c.b1 * input - c.a1 * output + state2
    state2 = c.b2 * input - c.a2 * output
    value = output
    return output
  }

  /// Forgets the state; the next sample initialises it again.
  public mutating func reset() {
    value = nil
    state1 = .zero
    state2 = .zero
  }
}
