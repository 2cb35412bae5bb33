// SPDX-License-Identifier: Apache-2.0

/// The error model of a single-value sensor (barometer in kPa, thermometer in °C).
///
/// A reading is `quantize(truth + bias + drift + white)`, with the same meaning as in
/// ``SensorNoiseModel``. Every field defaults to the ideal value.
public struct ScalarSensorNoiseModel: Sendable, Equatable, Codable {
  /// White-noise density in unit/√Hz (default 0).
  public var noiseDensity: Double
  /// Constant bias in the sensor's unit (default 0).
  public var bias: Double
  /// Bias random walk in unit/√s (default 0).
  public var biasRandomWalk: Double
  /// Quantisation step; 0 disables quantisation (default).
  public var quantization: Double

  /// Creates a model; every omitted parameter is ideal.
  public init(
    noiseDensity: Double = 0, bias: Double = 0, biasRandomWalk: Double = 0, quantization: Double = 0
  ) {
    self.noiseDensity = noiseDensity
    self.bias = bias
    self.biasRandomWalk = biasRandomWalk
    self.quantization = quantization
  }

  /// A perfect sensor.
  public static let ideal = ScalarSensorNoiseModel()

  private enum CodingKeys: String, CodingKey {
    case noiseDensity, bias, biasRandomWalk, quantization
  }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    noiseDensity = try c.decodeIfPresent(Double.self, forKey: .noiseDensity) ?? 0
    bias = try c.decodeIfPresent(Double.self, forKey: .bias) ?? 0
    biasRandomWalk = try c.decodeIfPresent(Double.self, forKey: .biasRandomWalk) ?? 0
    quantization = try c.decodeIfPresent(Double.self, forKey: .quantization) ?? 0
  }
}
