// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The error model of one three-axis sensor, in the sensor's own unit (m/s², rad/s or µT).
///
/// A reading is `clip(quantize(M·(1 + s)·truth + bias + drift + white))`, where `M` is the small
/// misalignment rotation, `s` the per-axis scale-factor error, `drift` the bias random walk and
/// `white` Gaussian noise with standard deviation `noiseDensity·√sampleRate` per sample. Every
/// field defaults to the ideal value (zero, or no clipping), which is also what JSON omission means.
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
  public init(noiseDensity: Double = 0, bias: Double = 0, biasRandomWalk: Double = 0, quantization: Double = 0) {
    self.noiseDensity = noiseDensity
    self.bias = bias
    self.biasRandomWalk = biasRandomWalk
    self.quantization = quantization
  }

  /// A perfect sensor.
  public static let ideal = ScalarSensorNoiseModel()

  private enum CodingKeys: String, CodingKey { case noiseDensity, bias, biasRandomWalk, quantization }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    noiseDensity = try c.decodeIfPresent(Double.self, forKey: .noiseDensity) ?? 0
    bias = try c.decodeIfPresent(Double.self, forKey: .bias) ?? 0
    biasRandomWalk = try c.decodeIfPresent(Double.self, forKey: .biasRandomWalk) ?? 0
    quantization = try c.decodeIfPresent(Double.self, forKey: .quantization) ?? 0
  }
}

/// The error models of all simulated sensors plus timestamp jitter.
///
/// In JSON either a preset name (`"phone"`, `"noiseless"`) or an object whose omitted members are
/// ideal. The default is ``phone``.
public struct SimulatorNoise: Sendable, Equatable, Codable {
  /// Accelerometer errors in m/s².
  public var accelerometer: SensorNoiseModel
  /// Gyroscope errors in rad/s.
  public var gyroscope: SensorNoiseModel
  /// Magnetometer errors in µT (the bias is the hard-iron offset).
  public var magnetometer: SensorNoiseModel
  /// Barometer errors in kPa.
  public var barometer: ScalarSensorNoiseModel
  /// Thermometer errors in °C.
  public var thermometer: ScalarSensorNoiseModel
  /// Standard deviation of the timestamp jitter in seconds (default 0); each sample is taken and
  /// stamped at its jittered instant, clamped to ±40 % of the sample period so timestamps stay
  /// increasing.
  public var timestampJitter: Double

  /// Creates a configuration; omitted sensors are ideal.
  public init(
    accelerometer: SensorNoiseModel = .ideal, gyroscope: SensorNoiseModel = .ideal,
    magnetometer: SensorNoiseModel = .ideal, barometer: ScalarSensorNoiseModel = .ideal,
    thermometer: ScalarSensorNoiseModel = .ideal, timestampJitter: Double = 0
  ) {
    self.accelerometer = accelerometer
    self.gyroscope = gyroscope
    self.magnetometer = magnetometer
    self.barometer = barometer
    self.thermometer = thermometer
    self.timestampJitter = timestampJitter
  }

  /// Perfect sensors and exact timestamps, for tests.
  public static let noiseless = SimulatorNoise()

  /// Errors of a typical phone IMU (figures in the range of consumer MEMS parts such as the
  /// BMI160/LSM6DS3 accelerometer-gyroscope, an AK09918-class magnetometer and a BMP280-class
  /// barometer).
  public static let phone = SimulatorNoise(
    accelerometer: SensorNoiseModel(
      noiseDensity: 1.8e-3,  // ≈ 180 µg/√Hz
      bias: SIMD3(0.05, -0.04, 0.08), biasRandomWalk: 1e-4,
      scaleFactorError: SIMD3(0.003, -0.002, 0.004), misalignment: SIMD3(0.1, -0.05, 0.08),
      quantization: 16 * Units.standardGravity / 65536,  // 16 bit over ±8 g
      range: 8 * Units.standardGravity),
    gyroscope: SensorNoiseModel(
      noiseDensity: 1.2e-4,  // ≈ 0.007 °/s/√Hz
      bias: SIMD3(0.004, -0.003, 0.002),  // ≈ 0.2 °/s turn-on bias
      biasRandomWalk: 3e-5,
      scaleFactorError: SIMD3(0.005, -0.003, 0.004), misalignment: SIMD3(0.2, 0.1, -0.15),
      quantization: 4000 * Units.radiansPerDegree / 65536,  // 16 bit over ±2000 °/s
      range: 2000 * Units.radiansPerDegree),
    magnetometer: SensorNoiseModel(
      noiseDensity: 0.04,  // ≈ 0.4 µT rms at 100 Hz
      bias: SIMD3(12, -8, 20),  // hard iron
      biasRandomWalk: 0,
      scaleFactorError: SIMD3(0.02, -0.015, 0.01),  // soft iron, diagonal part
      misalignment: SIMD3(0.5, -0.3, 0.4),
      quantization: 0.15, range: 4900),
    barometer: ScalarSensorNoiseModel(
      noiseDensity: 1.2e-5,  // ≈ 0.12 Pa rms at 100 Hz
      bias: 0.02, biasRandomWalk: 1e-6, quantization: 1.6e-5),
    thermometer: ScalarSensorNoiseModel(noiseDensity: 0.002, bias: 0.5, quantization: 0.01),
    timestampJitter: 2e-4)

  /// The preset names accepted in JSON.
  public static let presetNames = ["phone", "noiseless"]

  /// The preset with the given name, or `nil`.
  public static func preset(named name: String) -> SimulatorNoise? {
    switch name {
    case "phone": return .phone
    case "noiseless": return .noiseless
    default: return nil
    }
  }

  private enum CodingKeys: String, CodingKey {
    case accelerometer, gyroscope, magnetometer, barometer, thermometer, timestampJitter
  }

  public init(from decoder: Decoder) throws {
    if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
      guard let preset = Self.preset(named: name) else {
        throw DecodingError.dataCorrupted(
          DecodingError.Context(
            codingPath: decoder.codingPath,
            debugDescription: "Unknown noise preset '\(name)'. Valid presets: "
              + Self.presetNames.joined(separator: ", ")))
      }
      self = preset
      return
    }
    let c = try decoder.container(keyedBy: CodingKeys.self)
    accelerometer = try c.decodeIfPresent(SensorNoiseModel.self, forKey: .accelerometer) ?? .ideal
    gyroscope = try c.decodeIfPresent(SensorNoiseModel.self, forKey: .gyroscope) ?? .ideal
    magnetometer = try c.decodeIfPresent(SensorNoiseModel.self, forKey: .magnetometer) ?? .ideal
    barometer = try c.decodeIfPresent(ScalarSensorNoiseModel.self, forKey: .barometer) ?? .ideal
    thermometer = try c.decodeIfPresent(ScalarSensorNoiseModel.self, forKey: .thermometer) ?? .ideal
    timestampJitter = try c.decodeIfPresent(Double.self, forKey: .timestampJitter) ?? 0
  }
}
