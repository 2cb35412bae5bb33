// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import XCTest

/// The heading's time constant is in seconds whatever the magnetometer's rate: a field delivered
/// on every 4th sample only (as phones deliver a slower magnetometer beside a 100 Hz gyroscope)
/// moves the heading as fast as one delivered with every sample.
final class AttitudeEstimatorSensorRateTests: XCTestCase {
  /// Heading offset change (degrees) 9 s (one magnetometer time constant) after magnetic north
  /// turns by 10° at t = 10 s, for a device at rest with the field on every `every`-th sample.
  private func headingResponse(magnetometerEvery every: Int) -> Double {
    var estimator = AttitudeEstimator(samplePeriod: 0.01)
    var before = 0.0
    for i in 0..<1900 {
      let t = Double(i) * 0.01
      let north = t < 10 ? 0.0 : 10 * Units.radiansPerDegree
      // NWU earth frame, device level and still: 20 µT horizontal, 40 µT down.
      let field = SIMD3(20 * Double.cos(north), -20 * Double.sin(north), -40)
      estimator.update(
        timestamp: t, gyroscope: .zero, accelerometer: SIMD3(0, 0, Units.standardGravity),
        magnetometer: i % every == 0 ? field : nil)
      if i == 999 { before = estimator.state.headingOffset }
    }
    return (estimator.state.headingOffset - before) / Units.radiansPerDegree
  }

  func testHeadingTimeConstantDoesNotDependOnTheMagnetometerRate() {
    let full = headingResponse(magnetometerEvery: 1)
    let quarter = headingResponse(magnetometerEvery: 4)
    // One time constant: 1 − e⁻¹ of the 10° step, 6.3°.
    let oneTimeConstantResponse = 6.32  // degrees
    // The first-order gain's discretisation and the 0.5 s the disturbance check waits after any
    // change.
    let discretisationAndWaitTolerance = 0.6  // degrees
    XCTAssertEqual(abs(full), oneTimeConstantResponse, accuracy: discretisationAndWaitTolerance)
    // The same response from a 25 Hz magnetometer: a quarter of the samples, so the discrete steps
    // land at slightly different instants.
    let samplingInstantsTolerance = 0.3  // degrees
    XCTAssertEqual(quarter, full, accuracy: samplingInstantsTolerance)
  }
}
