// SPDX-License-Identifier: Apache-2.0

/// A first-order (one-pole) low-pass filter with its cut-off in Hz, optionally adaptive.
///
/// Use it to pull gravity out of accelerometer readings (cut-off around 0.5–2 Hz) or to steady a
/// tilt reading. The pole is chosen so that the gain is exactly −3 dB at ``cutoffFrequency`` for
/// the configured ``sampleRate`` (the exact pole, not the RC approximation `Δt / (RC + Δt)`, which
/// holds only far below the sample rate); the DC gain is exactly 1.
///
/// The first sample initialises the output (no start-up transient from zero). Feed samples with
/// ``update(_:)`` at the configured rate, or with ``update(_:samplePeriod:)`` when the interval
/// varies (the pole is then recomputed for that interval).
///
/// With ``adaptive`` set, the filter smooths noise-sized changes more strongly and follows larger
/// changes at the nominal cut-off (see ``AdaptiveSmoothing``).
///
/// A sample with a NaN or infinite component is skipped: the state is kept and the current output
/// returned (before the first usable sample, the sample itself, as there is no output yet). Taken
/// in, it would poison the output for good (infinity, then NaN at the next normal sample); inputs
/// can be built by apps, and a sensor or a division upstream can produce one.
public struct FirstOrderLowPassFilter<Value: FilterableValue>: Sendable {
  /// The −3 dB frequency in Hz.
  public var cutoffFrequency: Double { pole.cutoffFrequency }
  /// The nominal sample rate in Hz.
  public var sampleRate: Double { pole.sampleRate }
  /// The adaptation settings, or `nil` for a fixed filter.
  public var adaptive: AdaptiveSmoothing?
  /// The current output, or `nil` before the first sample.
  public private(set) var value: Value?

  private var pole: FirstOrderPole

  /// Creates a filter with a −3 dB cut-off of `cutoffFrequency` Hz for samples arriving at
  /// `sampleRate` Hz; `adaptive` (default `nil`) enables the adaptive variant.
  public init(cutoffFrequency: Double, sampleRate: Double, adaptive: AdaptiveSmoothing? = nil) {
    self.pole = FirstOrderPole(.lowPass, cutoffFrequency: cutoffFrequency, sampleRate: sampleRate)
    self.adaptive = adaptive
  }

  /// Filters one sample taken at the nominal rate and returns the new output.
  @discardableResult
  public mutating func update(_ input: Value) -> Value {
    step(input, pole: pole.value)
  }

  /// Filters one sample that arrived `samplePeriod` seconds after the previous one.
  @discardableResult
  public mutating func update(_ input: Value, samplePeriod: Double) -> Value {
    step(input, pole: pole.value(forSamplePeriod: samplePeriod))
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
    // A non-finite sample would poison the state for good: skip it (see the type's documentation).
    guard input.isFilterable else { return value ?? input }
    guard let previous = value else {
      value = input
      return input
    }
    var gain = 1 - pole
    if let adaptive {
      // Noise-sized changes move the output `noiseAttenuation` times more slowly.
      gain = gain * adaptive.constantScale(forChange: (input - previous).filterNorm)
    }
    let output = previous + gain * (input - previous)
    value = output
    return output
  }
}
