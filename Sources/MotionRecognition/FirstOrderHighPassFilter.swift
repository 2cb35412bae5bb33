// SPDX-License-Identifier: Apache-2.0

/// A first-order (one-pole) high-pass filter with its cut-off in Hz, optionally adaptive.
///
/// Use it to keep the quick part of a signal: the jolts of a tap or shake without gravity. The
/// pole is chosen so that the gain is exactly −3 dB at ``cutoffFrequency`` for the configured
/// ``sampleRate`` (the exact pole, not the RC approximation, which drifts near Nyquist); the gain
/// at DC is exactly 0, so a constant input decays to zero.
///
/// The first sample is taken as the signal's resting level, so the output starts at zero instead
/// of with a jump. With ``adaptive`` set, noise-sized changes are attenuated more strongly while
/// large changes pass at the nominal cut-off (see ``AdaptiveSmoothing``).
///
/// A sample with a NaN or infinite component is skipped: the state is kept and the current output
/// returned (zero before the first usable sample). Taken in, it would poison the output for good
/// (the next change from it is infinite or NaN, and the output carries it on); inputs can be built
/// by apps, and a sensor or a division upstream can produce one.
public struct FirstOrderHighPassFilter<Value: FilterableValue>: Sendable {
  /// The −3 dB frequency in Hz.
  public var cutoffFrequency: Double { pole.cutoffFrequency }
  /// The nominal sample rate in Hz.
  public var sampleRate: Double { pole.sampleRate }
  /// The adaptation settings, or `nil` for a fixed filter.
  public var adaptive: AdaptiveSmoothing?
  /// The current output, or `nil` before the first sample.
  public private(set) var value: Value?

  private var previousInput: Value?
  private var pole: FirstOrderPole

  /// Creates a filter with a −3 dB cut-off of `cutoffFrequency` Hz for samples arriving at
  /// `sampleRate` Hz; `adaptive` (default `nil`) enables the adaptive variant.
  public init(cutoffFrequency: Double, sampleRate: Double, adaptive: AdaptiveSmoothing? = nil) {
    self.pole = FirstOrderPole(.highPass, cutoffFrequency: cutoffFrequency, sampleRate: sampleRate)
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

  /// Forgets the state; the next sample becomes the new resting level.
  public mutating func reset() {
    value = nil
    previousInput = nil
  }

  private mutating func step(_ input: Value, pole: Double) -> Value {
    // A non-finite sample would poison the state for good: skip it (see the type's documentation).
    guard input.isFilterable else { return value ?? .zero }
    guard let lastInput = previousInput, let lastOutput = value else {
      previousInput = input
      value = .zero
      return .zero
    }
    let change = input - lastInput
    var factor = pole
    if let adaptive {
      // Noise-sized changes contribute `noiseAttenuation` times less and decay faster.
      factor = pole * adaptive.constantScale(forChange: change.filterNorm)
    }
    let output = factor * (lastOutput + change)
    previousInput = input
    value = output
    return output
  }
}
