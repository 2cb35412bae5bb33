// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import XCTest
import _MotionTestSupport

final class MagnetometerCalibratorTests: XCTestCase {
  /// Hard iron with a mild soft-iron distortion on a tumbling device: the accuracy climbs from
  /// uncalibrated to high and the calibrated field recovers the earth field's norm. (Strong soft
  /// iron, e.g. 20% axis scaling, is not yet learnt reliably: see the fusion report.)
  func testAccuracyProgressionWithHardAndSoftIron() {
    let seed = testSeed()
    var imu = SyntheticIMU()
    imu.hardIron = SIMD3(18, -12, 7)
    imu.softIron = (SIMD3(1.01, 0.005, 0), SIMD3(0.005, 0.99, 0.002), SIMD3(0, 0.002, 1.0))
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
      estimator.update(timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer, magnetometer: s.magnetometer)
      if levels.last != estimator.magneticCalibrationAccuracy { levels.append(estimator.magneticCalibrationAccuracy) }
    }
    XCTAssertEqual(levels.first, .uncalibrated, "seed \(seed)")
    XCTAssertEqual(levels.last, .high, "levels \(levels), seed \(seed)")
    XCTAssertEqual(levels, levels.sorted(), "accuracy only climbs on clean data: \(levels)")
    let calibrator = estimator.attitudeEstimator.state.magnetometerCalibrator
    // Within 5% of the true norm over the last 5 s of orientations (the 1% soft iron left
    // uncorrected and 0.3 µT noise stay well inside).
    let norm = imu.earthField.length
    var worst = 0.0
    for s in samples.suffix(500) {
      let calibrated = calibrator.calibrate(s.magnetometer)
      worst = max(worst, abs(calibrated.length - norm) / norm)
    }
    XCTAssertLessThan(worst, 0.05, "seed \(seed)")
    XCTAssertLessThan((calibrator.hardIronOffset - imu.hardIron).length, 1.5, "seed \(seed)")
    XCTAssertFalse(estimator.needsCalibrationMotion)
  }

  /// Without rotation the offset is unobservable: the calibration stays uncalibrated and the
  /// API is told to ask for motion.
  func testNoRotationStaysUncalibrated() {
    var imu = SyntheticIMU()
    imu.hardIron = SIMD3(10, 0, 0)
    let truth = Quaternion(angle: 0.3, axis: SIMD3(1, 0, 0))
    let samples = imu.samples(duration: 20, rate: 100, attitude: { t in truth * Quaternion.aboutZ(0.1 * t) })
    var estimator = DeviceMotionEstimator(samplePeriod: 0.01)
    for s in samples {
      estimator.update(timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer, magnetometer: s.magnetometer)
    }
    XCTAssertEqual(estimator.magneticCalibrationAccuracy, .uncalibrated)
    XCTAssertTrue(estimator.needsCalibrationMotion)
  }
}
