// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import XCTest

final class StrideModelTests: XCTestCase {
  /// The model's formula evaluated twice: only rounding separates the two sides.
  let roundingTolerance = 1e-9  // m
  /// The anchor of the model: 0.41 × height at 1.8 steps/s (exact arithmetic up to rounding).
  func testNormalWalkingStepIsAboutFourTenthsOfTheHeight() {
    XCTAssertEqual(
      StrideModel(userHeight: 1.80).strideLength(cadence: 1.8), 0.738, accuracy: roundingTolerance)
    XCTAssertEqual(
      StrideModel().strideLength(cadence: 1.8), 0.41 * StrideModel.defaultHeight,
      accuracy: roundingTolerance)
  }

  func testLengthGrowsWithCadenceAndHeight() {
    let model = StrideModel(userHeight: 1.70)
    var previous = 0.0
    for cadence in stride(from: 0.5, through: 4.0, by: 0.1) {
      let length = model.strideLength(cadence: cadence)
      XCTAssertGreaterThan(length, previous, "cadence \(cadence)")
      previous = length
    }
    XCTAssertGreaterThan(
      StrideModel(userHeight: 1.9).strideLength(cadence: 2),
      StrideModel(userHeight: 1.6).strideLength(cadence: 2))
    // Running at 2.8 steps/s: about a metre per step for 1.70 m (≈ 3 m/s); 1.06 m is StrideModel's
    // documented figure (≈ 0.62 h) rounded, so the model only has to land within 2 cm of it.
    let roundedFigureTolerance = 0.02  // m
    XCTAssertEqual(model.strideLength(cadence: 2.8), 1.06, accuracy: roundedFigureTolerance)
  }

  func testHostileInputsAreClamped() {
    let model = StrideModel(userHeight: .nan)
    XCTAssertEqual(model.strideLength(cadence: .nan), StrideModel().strideLength(cadence: 1.8))
    XCTAssertEqual(model.strideLength(cadence: 100), model.strideLength(cadence: 4))
    XCTAssertEqual(model.strideLength(cadence: -3), model.strideLength(cadence: 0.5))
    XCTAssertEqual(
      StrideModel(userHeight: 1e9).strideLength(cadence: 2), StrideModel().strideLength(cadence: 2))
  }
}
