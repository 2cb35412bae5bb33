// SPDX-License-Identifier: Apache-2.0

/// The pole of a one-pole filter, kept matched to a cut-off in Hz as the sample interval varies.
///
/// ``FirstOrderLowPassFilter`` and ``FirstOrderHighPassFilter`` differ only in their recursion.
/// Both keep their cut-off in Hz rather than as a bare smoothing factor, so both must recompute the
/// pole when samples arrive at another interval; that bookkeeping lives here once.
struct FirstOrderPole: Sendable {
  /// Which −3 dB pole formula of ``FilterCoefficients`` applies.
  enum Response: Sendable {
    case lowPass
    case highPass
  }

  /// The filter type whose pole this is.
  let response: Response
  /// The −3 dB frequency in Hz.
  let cutoffFrequency: Double
  /// The nominal sample rate in Hz.
  let sampleRate: Double
  /// The pole for the most recent sample interval (the nominal one until another is seen).
  private(set) var value: Double
  /// The sample interval in seconds that ``value`` was computed for.
  private var period: Double

  /// Creates the pole of a `response` filter with a −3 dB cut-off of `cutoffFrequency` Hz for
  /// samples arriving at `sampleRate` Hz.
  init(_ response: Response, cutoffFrequency: Double, sampleRate: Double) {
    self.response = response
    self.cutoffFrequency = cutoffFrequency
    self.sampleRate = sampleRate
    self.value = Self.pole(response, cutoffFrequency: cutoffFrequency, sampleRate: sampleRate)
    self.period = 1 / sampleRate
  }

  /// Returns the pole for a sample that arrived `samplePeriod` seconds after the previous one,
  /// recomputing it when the interval changed; a non-positive or non-finite period keeps the
  /// current pole.
  mutating func value(forSamplePeriod samplePeriod: Double) -> Double {
    guard samplePeriod > 0, samplePeriod.isFinite else { return value }
    if Swift.abs(samplePeriod - period) > 1e-9 * Swift.max(1, period) {
      // Recomputed only when the interval changes, so steady streams pay nothing extra.
      value = Self.pole(response, cutoffFrequency: cutoffFrequency, sampleRate: 1 / samplePeriod)
      period = samplePeriod
    }
    return value
  }

  private static func pole(
    _ response: Response, cutoffFrequency: Double, sampleRate: Double
  ) -> Double {
    switch response {
    case .lowPass:
      FilterCoefficients.lowPassPole(cutoffFrequency: cutoffFrequency, sampleRate: sampleRate)
    case .highPass:
      FilterCoefficients.highPassPole(cutoffFrequency: cutoffFrequency, sampleRate: sampleRate)
    }
  }
}
