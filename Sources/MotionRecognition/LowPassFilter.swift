// SPDX-License-Identifier: Apache-2.0

/// A first-order (one-pole) low-pass filter with its cut-off in Hz, optionally adaptive.
///
/// Use it to pull gravity out of accelerometer readings (cut-off around 0.5–2 Hz) or to steady a
/// tilt reading. The pole is chosen so that the gain is exactly −3 dB at ``cutoffFrequency`` for
/// the configured ``sampleRate`` (see ``FilterCoefficients/lowPassPole(cutoffFrequency:sampleRate:)``);
/// the DC gain is exactly 1.
///
/// The first sample initialises the output (no start-up transient from zero). Feed samples with
/// ``update(_:)`` at the configured rate, or with ``update(_:samplePeriod:)`` when the interval
/// varies (the pole is then recomputed for that interval).
///
/// With ``adaptive`` set, the filter smooths noise-sized changes more strongly and follows larger
/// changes at the nominal cut-off (see ``AdaptiveSmoothing``).
public struct LowPassFilter<Value: FilterableValue>: Sendable {
  /// The −3 dB frequency in Hz.
  public private(set) var cutoffFrequency: Double
  /// The nominal sample rate in Hz.
  public private(set) var sampleRate: Double
  /// The adaptation settings, or `nil` for a fixed filter.
  public var adaptive: AdaptiveSmoothing?
  /// The current output, or `nil` before the first sample.
  public private(set) var value: Value?

  private var pole: Double
  private var polePeriod: Double

  /// Creates a filter with a −3 dB cut-off of `cutoffFrequency` Hz for samples arriving at
  /// `sampleRate` Hz; `adaptive` (default `nil`) enables the adaptive variant.
  public init(cutoffFrequency: Double, sampleRate: Double, adaptive: AdaptiveSmoothing? = nil) {
    self.cutoffFrequency = cutoffFrequency
    self.sampleRate = sampleRate
    self.adaptive = adaptive
    self.pole = FilterCoefficients.lowPassPole(cutoffFrequency: cutoffFrequency, sampleRate: sampleRate)
    self.polePeriod = 1 / sampleRate
  }

  /// Filters one sample taken at the nominal rate and returns the new output.
  @discardableResult
  public mutating func update(_ input: Value) -> Value {
    step(input, pole: pole)
  }

  /// Filters one sample that arrived `samplePeriod` seconds after the previous one.
  @discardableResult
  public mutating func update(_ input: Value, samplePeriod: Double) -> Value {
    guard samplePeriod > 0, samplePeriod.isFinite else { return step(input, pole: pole) }
    if Swift.abs(samplePeriod - polePeriod) > 1e-9 * Swift.max(1, polePeriod) {
      // Recomputed only when the interval changes, so steady streams pay nothing extra.
      pole = FilterCoefficients.lowPassPole(cutoffFrequency: cutoffFrequency, sampleRate: 1 / samplePeriod)
      polePeriod = samplePeriod
    }
    return step(input, pole: pole)
  }

  /// Forgets the output; the next sample initialises it again.
  public mutating func reset() {
    value = nil
  }

  /// Starts from `initialValue` instead of the next sample.
  public mutating func reset(to initialValue: Value) {
    value = initialValue
  }

  private mutating func step(_ input: Value, pole: Double) -> Value {
    guard let previous = value else {
      value = input
      return input
    }
    var gain = 1 - pole
    if let adaptive {
      let weight = adaptive.movementWeight(forChange: (input - previous).filterNorm)
      // Noise-sized changes move the output `noiseAttenuation` times more slowly.
      gain = gain * (weight + (1 - weight) / Swift.max(adaptive.noiseAttenuation, 1))
    }
    let output = previous + gain * (input - previous)
    value = output
    return output
  }
}
