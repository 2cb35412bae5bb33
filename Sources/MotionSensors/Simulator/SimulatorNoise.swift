// SPDX-License-Identifier: Apache-2.0

import MotionMath

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
      noiseDensity: 1.0e-4,  // ≈ 1 Pa rms at 100 Hz, as phone barometers (BMP3xx, LPS22) give
      bias: 0.02, biasRandomWalk: 1e-6, quantization: 1.6e-5),
    thermometer: ScalarSensorNoiseModel(noiseDensity: 0.002, bias: 0.5, quantization: 0.01),
    timestampJitter: 2e-4)

  /// A description of the first out-of-range parameter (negative densities, steps or jitter, a
  /// range that is not positive, a non-finite number), or `nil` when all are usable.
  var problem: String? {
    let vectors = [
      ("accelerometer", accelerometer), ("gyroscope", gyroscope), ("magnetometer", magnetometer),
    ]
    for (name, model) in vectors {
      let numbers = [model.noiseDensity, model.biasRandomWalk, model.quantization]
      guard numbers.allSatisfy({ $0.isFinite && $0 >= 0 }) else {
        return "\(name) noiseDensity, biasRandomWalk and quantization must be finite and ≥ 0"
      }
      guard model.bias.isFinite, model.scaleFactorError.isFinite, model.misalignment.isFinite else {
        return "\(name) bias, scaleFactorError and misalignment must be finite"
      }
      guard model.range > 0, !model.range.isNaN else { return "\(name) range must be positive" }
    }
    for (name, model) in [("barometer", barometer), ("thermometer", thermometer)] {
      let numbers = [model.noiseDensity, model.biasRandomWalk, model.quantization]
      guard numbers.allSatisfy({ $0.isFinite && $0 >= 0 }), model.bias.isFinite else {
        return
          "\(name) parameters must be finite, and noiseDensity, biasRandomWalk and quantization ≥ 0"
      }
    }
    guard timestampJitter.isFinite, timestampJitter >= 0 else {
      return "timestampJitter must be finite and ≥ 0"
    }
    return nil
  }

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
    if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self)
    {
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
