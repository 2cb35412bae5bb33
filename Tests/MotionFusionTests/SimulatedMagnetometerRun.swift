// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import MotionSensors
import XCTest

/// What one run of the real-time estimator over a built-in simulator scenario produced, for the
/// magnetometer-calibration tests: the heading error against the truth at every sample, the
/// calibrated field seen in the true earth frame, and the calibration's progress.
struct SimulatedMagnetometerRun {
  var timestamps: [Double] = []
  /// Heading error of the 9D attitude (estimate relative to truth about the vertical), degrees.
  var headingErrors: [Double] = []
  /// The reported heading uncertainty at each sample, degrees (`nil` where none is reported).
  var headingSigmas: [Double?] = []
  /// The calibrated field's norm (µT) and dip (degrees, from the true attitude).
  var calibratedNorms: [Double] = []
  var calibratedDips: [Double] = []
  /// Accuracy levels in the order they were reported (consecutive repeats removed).
  var accuracyLevels: [MagneticCalibrationAccuracy] = []
  /// Time the calibration became trusted for the heading, s (nil if never).
  var trustedTime: Double?
  var disturbed: [Bool] = []
  var allFinite = true
  var final: DeviceMotionEstimator
}

extension SimulatedMagnetometerRun {
  /// Runs the 9D estimator over the built-in scenario `name` (phone noise; `ironFree` removes the
  /// magnetometer's hard and soft iron) with the noise seeded by `seed`.
  static func run(
    _ name: String, seed: UInt64, ironFree: Bool = false
  ) throws -> SimulatedMagnetometerRun {
    var scenario = try Scenario.named(name)
    XCTAssertEqual(scenario.noise, .phone, "the built-in scenarios use the phone preset")
    if ironFree {
      // A factory-calibrated magnetometer: the phone's noise and quantisation, no iron.
      scenario.noise.magnetometer.bias = .zero
      scenario.noise.magnetometer.scaleFactorError = .zero
      scenario.noise.magnetometer.misalignment = .zero
    }
    var stream = SimulatedSensorStream(scenario: scenario, seed: seed)
    var estimator = DeviceMotionEstimator(samplePeriod: 1 / stream.scenario.sampleRate)
    var result = SimulatedMagnetometerRun(final: estimator)
    while let sample = try stream.next() {
      guard let gyroscope = sample.gyroscope, let accelerometer = sample.accelerometer,
        let truth = sample.groundTruth?.earthFromSensor
      else { continue }
      estimator.update(
        timestamp: sample.timestamp, gyroscope: gyroscope, accelerometer: accelerometer,
        magnetometer: sample.magnetometer)
      let attitude = estimator.earthFromSensor9D
      let q = [attitude.w, attitude.x, attitude.y, attitude.z]
      if !q.allSatisfy(\.isFinite) { result.allFinite = false }
      // Rotation taking the estimate to the truth; its angle about the vertical is the heading
      // error (inclination errors are below 1°, so the small cross-coupling does not matter).
      var error = truth * attitude.conjugate
      if error.w < 0 { error = Quaternion(w: -error.w, x: -error.x, y: -error.y, z: -error.z) }
      result.timestamps.append(sample.timestamp)
      result.headingErrors.append(2 * Double.atan2(error.z, error.w) * Units.degreesPerRadian)
      result.headingSigmas.append(
        estimator.attitudeEstimator.headingUncertainty.map { $0 * Units.degreesPerRadian })
      if let field = estimator.calibratedMagneticField {
        if !field.isFinite { result.allFinite = false }
        let inEarth = truth.act(on: field)
        result.calibratedNorms.append(inEarth.length)
        result.calibratedDips.append(
          Double.asin(-inEarth.z / inEarth.length) * Units.degreesPerRadian)
      }
      let accuracy = estimator.magneticCalibrationAccuracy
      if result.accuracyLevels.last != accuracy { result.accuracyLevels.append(accuracy) }
      let calibrator = estimator.attitudeEstimator.state.magnetometerCalibrator
      if result.trustedTime == nil && calibrator.isTrustedForHeading {
        result.trustedTime = sample.timestamp
      }
      result.disturbed.append(estimator.isMagneticDisturbanceDetected)
    }
    result.final = estimator
    return result
  }

  /// The root mean square of `values`; NaN for none.
  static func rms<S: Sequence>(_ values: S) -> Double where S.Element == Double {
    var sum = 0.0
    var count = 0
    for v in values {
      sum += v * v
      count += 1
    }
    return count > 0 ? (sum / Double(count)).squareRoot() : .nan
  }
}
