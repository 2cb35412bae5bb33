// SPDX-License-Identifier: Apache-2.0

import MotionEvaluation
import MotionMath
import XCTest

/// `EvaluationTrial.decimated(by:)`: window means of the inputs, the last sample's time,
/// reference and movement flag, incomplete windows dropped, missing fields left out of the mean.
final class EvaluationTrialDecimationTests: XCTestCase {
  private func trial(count: Int) -> EvaluationTrial {
    let indices = (0..<count).map(Double.init)
    return EvaluationTrial(
      name: "ramp", timestamps: indices.map { $0 * 0.01 },
      gyroscope: indices.map { SIMD3($0, 2 * $0, -$0) },
      accelerometer: indices.map { SIMD3(0, 0, 9.81 + $0) },
      // Every third field sample missing (zero).
      magnetometer: indices.map { Int($0) % 3 == 2 ? .zero : SIMD3(20 + $0, 0, -40) },
      reference: indices.map { $0 == 5 ? nil : Quaternion(angle: $0 * 0.01, axis: SIMD3(0, 0, 1)) },
      isMovementPhase: indices.map { Int($0) % 2 == 0 })
  }

  func testWindowMeansAndLastSampleFields() {
    let decimated = trial(count: 10).decimated(by: 3)
    // 10 samples: windows 0–2, 3–5, 6–8; sample 9 dropped.
    XCTAssertEqual(decimated.count, 3)
    XCTAssertEqual(decimated.timestamps, [0.02, 0.05, 0.08])
    // Exact: means of small integers.
    XCTAssertEqual(decimated.gyroscope[1], SIMD3(4, 8, -4))
    XCTAssertEqual(decimated.accelerometer[2], SIMD3(0, 0, 9.81 + 7))
    // Window 0 has fields at 0 and 1 (2 missing): mean 20.5.
    XCTAssertEqual(decimated.magnetometer[0], SIMD3(20.5, 0, -40))
    XCTAssertNil(decimated.reference[1])  // sample 5 had none
    XCTAssertEqual(decimated.reference[2], Quaternion(angle: 0.08, axis: SIMD3(0, 0, 1)))
    XCTAssertEqual(decimated.isMovementPhase, [true, false, true])
  }

  func testFactorOneOrLessKeepsTheTrial() {
    let original = trial(count: 7)
    XCTAssertEqual(original.decimated(by: 1).timestamps, original.timestamps)
    XCTAssertEqual(original.decimated(by: 0).count, 7)
  }

  func testFewerSamplesThanOneWindowGivesAnEmptyTrial() {
    XCTAssertEqual(trial(count: 4).decimated(by: 5).count, 0)
  }
}
