// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Online magnetometer calibration (work in progress: pass-through).
public struct MagnetometerCalibrator: Sendable {
  public init() {}
  public var accuracy: MagneticCalibrationAccuracy { .uncalibrated }
  mutating func update(field: SIMD3<Double>, earthFromSensor: Quaternion, gyroscope: SIMD3<Double>, samplePeriod: Double) {}
  func calibrate(_ raw: SIMD3<Double>) -> SIMD3<Double> { raw }
}
