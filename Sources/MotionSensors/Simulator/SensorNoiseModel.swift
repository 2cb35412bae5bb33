// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The error model of one three-axis sensor, in the sensor's own unit (m/s², rad/s or µT).
///
/// A reading is `clip(quantize(M·(1 + s)·truth + bias + drift + white))`, where `M` is the small
/// misalignment rotation, `s` the per-axis scale-factor error, `drift` the bias random walk and
/// `white` Gaussian noise with standard deviation `noiseDensity·√sampleRate` per sample. Every
/// field defaults to the ideal value (zero, or no clipping), which is also what JSON omission
/// means.
public struct SensorNoiseModel: Sendable, Equatable, Codable {
  /// White-noise density in unit/√Hz (default 0).
  public var noiseDensity: Double
  /// Constant bias per axis in the sensor's unit (default zero).
  public var bias: SIMD3<Double>
  /// Bias random walk in unit/√s: the bias drifts by this much, in standard deviation, after one
  /// second (default 0).
  public var biasRandomWalk: Double
  /// Scale-factor error per axis as a fraction (0.01 = reads 1 % high; default zero).
  public var scaleFactorError: SIMD3<Double>
  /// Misalignment of the sensing axes as a small rotation vector in degrees (default zero).
  public var misalignment: SIMD3<Double>
  /// Quantisation step (one LSB) in the sensor's unit; 0 disables quantisation (default).
  public var quantization: Double
  /// Full-scale range: readings are clipped to ±range per axis (default infinity: no clipping).
  public var range: Double

  /// Creates a model; every omitted parameter is ideal.
  public init(
    noiseDensity: Double = 0, bias: SIMD3<Double> = .zero, biasRandomWalk: Double = 0,
    scaleFactorError: SIMD3<Double> = .zero, misalignment: SIMD3<Double> = .zero,
    quantization: Double = 0, range: Double = .infinity
  ) {
    self.noiseDensity = noiseDensity
    self.bias = bias
    self.biasRandomWalk = biasRandomWalk
    self.scaleFactorError = scaleFactorError
    self.misalignment = misalignment
    self.quantization = quantization
    self.range = range
  }

  /// A perfect sensor.
  public static let ideal = SensorNoiseModel()

  private enum CodingKeys: String, CodingKey {
    case noiseDensity, bias, biasRandomWalk, scaleFactorError, misalignment, quantization, range
  }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    noiseDensity = try c.decodeIfPresent(Double.self, forKey: .noiseDensity) ?? 0
    bias = try c.decodeIfPresent(SIMD3<Double>.self, forKey: .bias) ?? .zero
    biasRandomWalk = try c.decodeIfPresent(Double.self, forKey: .biasRandomWalk) ?? 0
    scaleFactorError = try c.decodeIfPresent(SIMD3<Double>.self, forKey: .scaleFactorError) ?? .zero
    misalignment = try c.decodeIfPresent(SIMD3<Double>.self, forKey: .misalignment) ?? .zero
    quantization = try c.decodeIfPresent(Double.self, forKey: .quantization) ?? 0
    // JSON has no infinity; a missing or null range means no clipping.
    range = try c.decodeIfPresent(Double.self, forKey: .range) ?? .infinity
  }

  public func encode(to encoder: Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(noiseDensity, forKey: .noiseDensity)
    try c.encode(bias, forKey: .bias)
    try c.encode(biasRandomWalk, forKey: .biasRandomWalk)
    try c.encode(scaleFactorError, forKey: .scaleFactorError)
    try c.encode(misalignment, forKey: .misalignment)
    try c.encode(quantization, forKey: .quantization)
    if range.isFinite { try c.encode(range, forKey: .range) }
  }
}
