// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import XCTest

/// ``AttitudeEstimator/Parameters/deviceMotionInstants``: Core Motion's device-motion outputs are
/// instants, so the outputs are turned back by half of each sample's own interval
/// (``AttitudeEstimator/Parameters/gyroscopeDelayIntervals``) rather than by a fixed time.
final class AttitudeEstimatorDeviceMotionInstantsTests: XCTestCase {
  /// Runs `parameters` over a tumbling device sampled every `period` s; returns the 6D gravity
  /// directions, one per sample.
  private func gravities(
    _ parameters: AttitudeEstimator.Parameters, period: Double
  ) -> [SIMD3<Double>] {
    var imu = SyntheticIMU()
    let samples = imu.samples(
      duration: 20, rate: 1 / period,
      attitude: { t in
        Quaternion(angle: 0.6 * sin(0.8 * t), axis: SIMD3(1, 0, 0))
          * Quaternion(angle: 0.3 * t, axis: SIMD3(0, 0, 1))
      })
    var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: period)
    return samples.map { s in
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: nil)
      return estimator.earthFromSensor6D.conjugate.act(on: SIMD3(0, 0, -1))
    }
  }

  /// At a steady rate, half of each interval is the fixed half period: the same outputs to
  /// rounding, at 50 Hz and at 17 Hz (tolerance 1e-9 of a unit vector).
  func testHalfTheIntervalIsHalfTheFixedPeriodAtASteadyRate() {
    for period in [0.02, 0.06] {
      var fixed = AttitudeEstimator.Parameters.default
      fixed.gyroscopeDelay = -period / 2
      fixed.sampleAveragingLag = 0.5
      let expected = gravities(fixed, period: period)
      let actual = gravities(.deviceMotionInstants, period: period)
      XCTAssertEqual(actual.count, expected.count)
      let worst = zip(actual, expected).map { ($0 - $1).length }.max() ?? .infinity
      XCTAssertLessThan(worst, 1e-9, "period \(period) s")
    }
  }

  /// The preset changes only the timing; the default has no share of the interval.
  func testThePresetIsTheDefaultWithInstantTiming() {
    let preset = AttitudeEstimator.Parameters.deviceMotionInstants
    XCTAssertEqual(AttitudeEstimator.Parameters.default.gyroscopeDelayIntervals, 0)
    XCTAssertEqual(preset.gyroscopeDelayIntervals, -0.5)
    XCTAssertEqual(preset.gyroscopeDelay, 0)
    var back = preset
    back.gyroscopeDelay = AttitudeEstimator.Parameters.default.gyroscopeDelay
    back.gyroscopeDelayIntervals = 0
    XCTAssertEqual(back, .default)
  }
}
