// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import XCTest
import _MotionTestSupport

final class MagnetometerCalibratorTests: XCTestCase {
  /// Hard iron and a strong soft-iron distortion (±20% axis scaling, cross-coupling) on a
  /// tumbling device: the accuracy climbs from uncalibrated to high, the offset is found and the
  /// calibrated field has a constant norm.
  func testAccuracyProgressionWithHardAndSoftIron() {
    let seed = testSeed()
    var imu = SyntheticIMU()
    imu.hardIron = SIMD3(18, -12, 7)
    imu.softIron = (SIMD3(1.2, 0.05, 0), SIMD3(0.05, 0.85, 0.02), SIMD3(0, 0.02, 1.0))
    imu.magnetometerNoise = 0.3
    imu.rng = SplitMix64(seed: seed)
    let samples = imu.samples(duration: 40, rate: 100, attitude: tumblingAttitude)
    var parameters = AttitudeEstimator.Parameters.default
    // Heading from the calibrated field, so that the learnt calibration clears the
    // calibration-motion request.
    parameters.usesCalibratedFieldForHeading = true
    var estimator = DeviceMotionEstimator(samplePeriod: 0.01, parameters: parameters)
    var levels: [MagneticCalibrationAccuracy] = []
    for s in samples {
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
      if levels.last != estimator.magneticCalibrationAccuracy {
        levels.append(estimator.magneticCalibrationAccuracy)
      }
    }
    XCTAssertEqual(levels.first, .uncalibrated, "seed \(seed)")
    XCTAssertEqual(levels.last, .high, "levels \(levels), seed \(seed)")
    XCTAssertEqual(levels, levels.sorted(), "accuracy only climbs on clean data: \(levels)")
    let calibrator = estimator.attitudeEstimator.state.magnetometerCalibrator
    // The soft-iron matrix is fitted with unit determinant, so the calibrated norm is the true
    // norm times det(A)^(1/3); the largest deviation over the last 500 samples stays within
    // 3% (0.3 µT noise is 0.7% of 45 µT, and 500 samples reach about 3.5σ).
    let (s1, s2, s3) = imu.softIron
    let norm = imu.earthField.length * pow((s1 * s2.cross(s3)).sum(), 1.0 / 3)
    var worst = 0.0
    for s in samples.suffix(500) {
      let calibrated = calibrator.calibrate(s.magnetometer)
      worst = max(worst, abs(calibrated.length - norm) / norm)
    }
    XCTAssertLessThan(worst, 0.03, "seed \(seed)")
    XCTAssertLessThan((calibrator.hardIronOffset - imu.hardIron).length, 0.5, "seed \(seed)")
    let rows = calibrator.softIronRows
    XCTAssertGreaterThan(rows.0.x, 1.1, "soft iron found: \(rows)")
    XCTAssertFalse(estimator.needsCalibrationMotion)
  }

  /// Without rotation the offset is unobservable: the calibration stays uncalibrated and the
  /// API is told to ask for motion.
  func testNoRotationStaysUncalibrated() {
    var imu = SyntheticIMU()
    imu.hardIron = SIMD3(10, 0, 0)
    let truth = Quaternion(angle: 0.3, axis: SIMD3(1, 0, 0))
    let samples = imu.samples(
      duration: 20, rate: 100, attitude: { t in truth * Quaternion.aboutZ(0.1 * t) })
    var estimator = DeviceMotionEstimator(samplePeriod: 0.01)
    for s in samples {
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
    }
    XCTAssertEqual(estimator.magneticCalibrationAccuracy, .uncalibrated)
    XCTAssertTrue(estimator.needsCalibrationMotion)
  }
}
