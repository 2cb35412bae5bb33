// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import XCTest
import _MotionTestSupport

/// Finite but physically impossible inputs never reach the state, and a state that stops being
/// finite restarts (issue: one 1e200 rad/s sample turned the attitude into NaN for good).
final class AttitudeEstimatorHostileInputTests: XCTestCase {
  private let degree = Units.radiansPerDegree
  /// A slow turn at 100 Hz, so the attitude moves and the heading is in use.
  private func samples() -> [SyntheticIMU.Sample] {
    var imu = SyntheticIMU()
    return imu.samples(
      duration: 6, rate: 100, attitude: { t in Quaternion(angle: 0.3 * t, axis: SIMD3(0, 0, 1)) })
  }

  /// Feeds `samples`, replacing sample 300 by `corrupt(sample)`; returns the estimator and the
  /// worst 9D error after the corruption (rad).
  private func run(
    parameters: AttitudeEstimator.Parameters = .default,
    corrupt: (SyntheticIMU.Sample) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>?)
  ) -> (AttitudeEstimator, Double) {
    var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: 0.01)
    var worst = 0.0
    for (i, s) in samples().enumerated() {
      var (g, a, m): (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>?) = (
        s.gyroscope, s.accelerometer, s.magnetometer
      )
      if i == 300 { (g, a, m) = corrupt(s) }
      estimator.update(timestamp: s.timestamp, gyroscope: g, accelerometer: a, magnetometer: m)
      if i > 300 {
        let q = estimator.earthFromSensor9D
        worst = Swift.max(worst, q.w.isFinite ? q.angle(to: s.earthFromSensor) : .infinity)
      }
    }
    return (estimator, worst)
  }

  func testAbsurdGyroscopeSampleIsRejected() {
    let (estimator, worst) = run { s in (SIMD3(1e200, 0, 0), s.accelerometer, s.magnetometer) }
    XCTAssertEqual(estimator.state.diagnostics.implausibleSamples, 1)
    XCTAssertEqual(estimator.state.diagnostics.nonFiniteStateResets, 0)
    // Skipping one of 600 samples of a clean synthetic turn costs nothing visible: 1° is the
    // bound of the clean run's own convergence after 3 s.
    XCTAssertLessThan(worst / degree, 1)
  }

  func testAbsurdAccelerometerSampleIsRejected() {
    let (estimator, worst) = run { s in (s.gyroscope, SIMD3(0, 0, -1e200), s.magnetometer) }
    XCTAssertEqual(estimator.state.diagnostics.implausibleSamples, 1)
    XCTAssertLessThan(worst / degree, 1)
  }

  func testAbsurdMagnetometerReadingIsIgnoredButTheSampleIsUsed() {
    let (estimator, worst) = run { s in (s.gyroscope, s.accelerometer, SIMD3(0, 1e200, 0)) }
    XCTAssertEqual(estimator.state.diagnostics.implausibleSamples, 1)
    XCTAssertEqual(estimator.state.diagnostics.acceptedSamples, 600)
    XCTAssertLessThan(worst / degree, 1)
  }

  /// With the screening switched off, the absurd sample makes the state non-finite: the
  /// estimator restarts at once (counted) and converges again instead of staying NaN.
  func testNonFiniteStateRestarts() {
    var parameters = AttitudeEstimator.Parameters.default
    parameters.gyroscopePlausibleLimit = .infinity
    parameters.gyroscopeSaturation = .infinity
    var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: 0.01)
    let all = samples()
    for (i, s) in all.enumerated() {
      let g = i == 300 ? SIMD3<Double>(1e200, 1e200, 0) : s.gyroscope
      estimator.update(
        timestamp: s.timestamp, gyroscope: g, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
    }
    XCTAssertEqual(estimator.state.diagnostics.nonFiniteStateResets, 1)
    let q = estimator.earthFromSensor9D
    XCTAssertTrue(q.w.isFinite && q.x.isFinite && q.y.isFinite && q.z.isFinite)
    // 3 s after the restart the inclination and heading have converged again (the heading
    // restarts from the first field sample); 2° covers the 3 s accelerometer time constant.
    XCTAssertLessThan(q.angle(to: all.last!.earthFromSensor) / degree, 2)
  }

  /// A seed that is not finite (a first pass that went wrong) is refused: the estimator keeps its
  /// own starting bias and uncertainty, where a NaN sigma made the bias covariance NaN and tripped
  /// the invariant check at the next sample.
  func testNonFiniteSeedsAreRefused() {
    let fresh = AttitudeEstimator(samplePeriod: 0.01)
    let bias = SIMD3(0.01, -0.02, 0.005)
    for sigma in [Double.nan, .infinity, -.infinity] {
      var estimator = fresh
      estimator.seedGyroscopeBias(bias, sigma: sigma)
      XCTAssertEqual(estimator.gyroscopeBias, fresh.gyroscopeBias, "sigma \(sigma)")
      XCTAssertEqual(estimator.gyroscopeBiasSigma, fresh.gyroscopeBiasSigma, "sigma \(sigma)")
    }
    let badBiases: [SIMD3<Double>] = [
      SIMD3(.nan, 0, 0), SIMD3(0, .infinity, 0), SIMD3(0, 0, -.infinity),
    ]
    for badBias in badBiases {
      var estimator = fresh
      estimator.seedGyroscopeBias(badBias, sigma: 0.001)
      XCTAssertEqual(estimator.gyroscopeBias, fresh.gyroscopeBias, "bias \(badBias)")
      XCTAssertEqual(estimator.gyroscopeBiasSigma, fresh.gyroscopeBiasSigma, "bias \(badBias)")
    }
    // A finite seed is still taken, and the estimator runs on from a refused one.
    var estimator = fresh
    estimator.seedGyroscopeBias(bias, sigma: .nan)
    estimator.seedGyroscopeBias(bias, sigma: 0.001)
    XCTAssertEqual(estimator.gyroscopeBias, bias)
    XCTAssertEqual(estimator.gyroscopeBiasSigma, 0.001, accuracy: 1e-12)
    guard estimator.gyroscopeBiasSigma.isFinite, estimator.gyroscopeBias.isFinite else { return }
    for s in samples().prefix(100) {
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
    }
    XCTAssertTrue(estimator.earthFromSensor9D.w.isFinite)
  }
}
