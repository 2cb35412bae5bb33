// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest

@testable import MotionRecognition

final class TiltEstimatorTests: XCTestCase {
  private let degree = Units.radiansPerDegree

  private func gravity(rightDown: Double, topDown: Double) -> SIMD3<Double> {
    // Face up, rolled about y (right side down) then pitched about x (top edge down).
    SIMD3(Double.sin(rightDown), Double.sin(topDown), -Double.cos(rightDown) * Double.cos(topDown))
      .normalized
  }

  func testTiltMapsAnglesOntoUnitRange() {
    let estimator = TiltEstimator()
    XCTAssertEqual(estimator.tilt(ofGravity: SIMD3(0, 0, -1)), .level)
    // Inside the 2° dead zone.
    XCTAssertEqual(
      estimator.tilt(ofGravity: gravity(rightDown: 1.5 * degree, topDown: 0)).lateral, 0)
    // 16° right side down: (16 − 2) / (30 − 2) = 0.5.
    let half = estimator.tilt(ofGravity: gravity(rightDown: 16 * degree, topDown: 0))
    XCTAssertEqual(half.lateral, 0.5, accuracy: 1e-9)
    XCTAssertEqual(half.longitudinal, 0, accuracy: 1e-9)
    let forward = estimator.tilt(ofGravity: gravity(rightDown: 0, topDown: -16 * degree))
    XCTAssertEqual(forward.longitudinal, -0.5, accuracy: 1e-9)
    XCTAssertEqual(
      estimator.tilt(ofGravity: gravity(rightDown: -50 * degree, topDown: 0)).lateral, -1)
  }

  func testCalibratedNeutralAndSmoothing() {
    var estimator = TiltEstimator()
    // Held upright in portrait as the neutral pose; tipping the top edge away makes gravity move
    // towards −z in device coordinates.
    estimator.calibrate(neutral: SIMD3(0, -1, 0))
    XCTAssertEqual(estimator.tilt(ofGravity: SIMD3(0, -1, 0)), .level)
    let tipped = estimator.tilt(
      ofGravity: SIMD3(0, -Double.cos(16 * degree), -Double.sin(16 * degree)))
    XCTAssertEqual(Swift.abs(tipped.longitudinal), 0.5, accuracy: 1e-9)
    XCTAssertEqual(tipped.lateral, 0, accuracy: 1e-9)
    // The smoother converges to the unsmoothed value for a held pose.
    var last = TiltEstimator.Tilt.level
    for i in 0..<200 {
      last = estimator.update(
        gravity: SIMD3(0, -Double.cos(16 * degree), -Double.sin(16 * degree)),
        timestamp: Double(i) / 100)
    }
    XCTAssertEqual(last.longitudinal, tipped.longitudinal, accuracy: 1e-6)
  }

  /// A NaN or infinite gravity reading is skipped; taken in, it made every later smoothed tilt
  /// NaN.
  func testANonFiniteReadingDoesNotPoisonTheSmoothing() {
    var estimator = TiltEstimator()
    let tipped = gravity(rightDown: 16 * degree, topDown: 0)
    for i in 0..<50 { _ = estimator.update(gravity: tipped, timestamp: Double(i) / 100) }
    let skipped = estimator.update(gravity: SIMD3(.nan, 0, -1), timestamp: 0.5)
    XCTAssertEqual(skipped.lateral, 0.5, accuracy: 1e-3)
    _ = estimator.update(gravity: SIMD3(0, .infinity, -1), timestamp: 0.51)
    var last = TiltEstimator.Tilt.level
    for i in 52..<100 { last = estimator.update(gravity: tipped, timestamp: Double(i) / 100) }
    XCTAssertEqual(last.lateral, 0.5, accuracy: 1e-6)
    XCTAssertEqual(last.longitudinal, 0, accuracy: 1e-6)
  }
}
