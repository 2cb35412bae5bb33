// SPDX-License-Identifier: Apache-2.0

/// How an adaptive first-order filter bends its constant to the size of a change, in the signal's
/// unit (g for accelerometer streams).
///
/// The idea (popularised by Apple's old AccelerometerGraph sample) is that a fixed smoothing
/// constant is a compromise: heavy smoothing hides sensor noise but makes real movements lag. Here
/// the filter measures how much the input moved (from the filtered value for a low-pass, from the
/// previous input for a high-pass) and maps that onto a blend factor `d` in 0…1: `d = 0` for
/// changes at or below ``noiseLevel`` and `d = 1` at or above ``changeLevel``, linear in between.
/// Small changes are then treated as noise and attenuated ``noiseAttenuation`` times more strongly;
/// large changes pass at the filter's nominal cut-off.
public struct AdaptiveSmoothing: Sendable, Hashable {
  /// Changes up to this size are treated as noise, in the signal's unit. Default 0.02 (g).
  public var noiseLevel: Double
  /// Changes of this size or more are treated as real movement, in the signal's unit. Default 0.1
  /// (g).
  public var changeLevel: Double
  /// How many times slower (low-pass) or weaker (high-pass) the filter reacts to noise-sized
  /// changes than to real ones; 1 disables adaptation. Default 4.
  public var noiseAttenuation: Double

  /// Creates adaptation settings; see the properties for units and defaults.
  public init(noiseLevel: Double = 0.02, changeLevel: Double = 0.1, noiseAttenuation: Double = 4) {
    self.noiseLevel = noiseLevel
    self.changeLevel = changeLevel
    self.noiseAttenuation = noiseAttenuation
  }

  /// The defaults, tuned for accelerometer readings in g.
  public static let `default` = AdaptiveSmoothing()

  /// The blend factor in 0…1 for a change of size `change`: 0 is noise, 1 is real movement.
  @inlinable
  public func movementWeight(forChange change: Double) -> Double {
    let span = Swift.max(changeLevel - noiseLevel, 1e-12)
    return Swift.min(1, Swift.max(0, (change - noiseLevel) / span))
  }

  /// The factor, between 1/``noiseAttenuation`` and 1, by which a first-order filter scales its
  /// constant for a change of size `change`: 1 for real movement, 1/``noiseAttenuation`` for noise.
  ///
  /// Applied to a low-pass gain it moves the output that many times more slowly; applied to a
  /// high-pass pole it makes a noise-sized change contribute less and decay faster. An attenuation
  /// below 1 is treated as 1 (no adaptation).
  func constantScale(forChange change: Double) -> Double {
    let weight = movementWeight(forChange: change)
    return weight + (1 - weight) / Swift.max(noiseAttenuation, 1)
  }
}
