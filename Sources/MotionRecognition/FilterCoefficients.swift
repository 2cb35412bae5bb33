// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Pure coefficient formulas for the first- and second-order filters in this module.
///
/// Every formula takes the cut-off in Hz and the sample rate in Hz, never a bare smoothing factor,
/// so a filter keeps its meaning when the update interval changes.
package enum FilterCoefficients {
  /// The pole `β` of the one-pole low-pass `y ← y + (1 − β)(x − y)` whose gain is exactly −3 dB
  /// (1/√2) at `cutoffFrequency` Hz for a signal sampled at `sampleRate` Hz.
  ///
  /// Solving `|H(e^{iω})|² = ½` for `H(z) = (1 − β) / (1 − β z⁻¹)` with `c = cos ω` gives
  /// `β² + (2c − 4)β + 1 = 0`, whose root inside the unit circle is `(2 − c) − √((1 − c)(3 − c))`.
  /// The usual RC formula `Δt / (RC + Δt)` only approximates this when the cut-off is far below the
  /// sample rate. The cut-off is clamped just below the Nyquist frequency.
  package static func lowPassPole(cutoffFrequency: Double, sampleRate: Double) -> Double {
    let c = Double.cos(normalizedAngularFrequency(cutoffFrequency, sampleRate))
    return (2 - c) - ((1 - c) * (3 - c)).squareRoot()
  }

  /// The pole `β` of the one-pole high-pass `y ← β(y + x − x₋₁)` whose gain is exactly −3 dB at
  /// `cutoffFrequency` Hz for a signal sampled at `sampleRate` Hz.
  ///
  /// For `H(z) = β(1 − z⁻¹) / (1 − β z⁻¹)`, `|H|² = ½` gives `(3 − 4c)β² + 2cβ − 1 = 0`; the root
  /// written as `1 / (c + √((1 − c)(3 − c)))` stays finite where `3 − 4c` vanishes.
  package static func highPassPole(cutoffFrequency: Double, sampleRate: Double) -> Double {
    let c = Double.cos(normalizedAngularFrequency(cutoffFrequency, sampleRate))
    return 1 / (c + ((1 - c) * (3 - c)).squareRoot())
  }

  /// The angular frequency `ω = 2π f / f_s` in radians per sample, clamped to (0, 0.999π) so that
  /// the formulas stay finite and stable for out-of-range requests.
  @usableFromInline
  static func normalizedAngularFrequency(_ frequency: Double, _ sampleRate: Double) -> Double {
    guard sampleRate > 0, frequency.isFinite, sampleRate.isFinite else { return .pi / 2 }
    let omega = 2 * .pi * frequency / sampleRate
    return Swift.min(Swift.max(omega, 1e-9), 0.999 * .pi)
  }
}
