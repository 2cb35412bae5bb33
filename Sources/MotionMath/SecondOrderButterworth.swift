// SPDX-License-Identifier: Apache-2.0

/// The coefficients of a second-order Butterworth filter section (a biquad, `a0 = 1`): the one
/// Butterworth design that the recognition filters and the attitude estimator's filters share.
///
/// The analogue prototype `1 / (s² + √2 s + 1)` is mapped by the bilinear transform with the
/// cut-off pre-warped to `K = tan(π f_c / f_s)`, which puts the −3 dB point exactly at `f_c`.
/// Callers compute `K` (and decide how to clamp it below Nyquist); this type turns it into
/// coefficients.
public struct SecondOrderButterworth: Sendable, Hashable {
  /// Numerator coefficients.
  public var b0: Double, b1: Double, b2: Double
  /// Denominator coefficients (`a0 = 1`).
  public var a1: Double, a2: Double

  /// Coefficients given directly.
  public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
    (self.b0, self.b1, self.b2, self.a1, self.a2) = (b0, b1, b2, a1, a2)
  }

  /// The low-pass section for the pre-warped cut-off `k = tan(π f_c / f_s)`; DC gain 1.
  public static func lowPass(prewarpedCutoff k: Double) -> SecondOrderButterworth {
    let norm = normalization(k)
    let b0 = k * k * norm
    return SecondOrderButterworth(
      b0: b0, b1: 2 * b0, b2: b0, a1: denominator1(k, norm), a2: denominator2(k, norm))
  }

  /// The high-pass section for the pre-warped cut-off `k = tan(π f_c / f_s)`; DC gain 0.
  public static func highPass(prewarpedCutoff k: Double) -> SecondOrderButterworth {
    let norm = normalization(k)
    return SecondOrderButterworth(
      b0: norm, b1: -2 * norm, b2: norm, a1: denominator1(k, norm), a2: denominator2(k, norm))
  }

  /// The gain at DC, `(b0 + b1 + b2) / (1 + a1 + a2)`.
  public var dcGain: Double { (b0 + b1 + b2) / (1 + a1 + a2) }

  private static func normalization(_ k: Double) -> Double {
    1 / (1 + 2.0.squareRoot() * k + k * k)
  }

  private static func denominator1(_ k: Double, _ norm: Double) -> Double {
    2 * (k * k - 1) * norm
  }

  private static func denominator2(_ k: Double, _ norm: Double) -> Double {
    (1 - 2.0.squareRoot() * k + k * k) * norm
  }
}
