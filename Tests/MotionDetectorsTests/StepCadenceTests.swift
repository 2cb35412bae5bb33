// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import XCTest

/// ``StepCadence``: the cadence and length of each step, as every distance is summed.
final class StepCadenceTests: XCTestCase {
  let model = StrideModel(userHeight: 1.70)

  func testABoutsFirstStepHasNoCadenceAndTheNominalLength() {
    var cadence = StepCadence(strideModel: model)
    let first = cadence.noteStep(at: 10)
    XCTAssertNil(first.cadence)
    XCTAssertEqual(first.length, model.strideLength(cadence: 1.8), accuracy: 1e-12)
    // The second step, 0.5 s later: 2 steps/s.
    let second = cadence.noteStep(at: 10.5)
    XCTAssertEqual(try XCTUnwrap(second.cadence), 2, accuracy: 1e-12)
    XCTAssertEqual(second.length, model.strideLength(cadence: 2), accuracy: 1e-12)
  }

  func testTheCadenceIsMeasuredOverTheLastStepsOfTheBout() {
    var cadence = StepCadence(parameters: .init(stepsKept: 8), strideModel: model)
    // 20 steps at 3 steps/s, then 8 at 1.5 steps/s: once 8 slow steps are kept, only they count.
    var time = 0.0
    for _ in 0..<20 {
      _ = cadence.noteStep(at: time)
      time += 1.0 / 3
    }
    time += 1.0 / 1.5 - 1.0 / 3
    var last: Double?
    for _ in 0..<8 {
      last = cadence.noteStep(at: time).cadence
      time += 1.0 / 1.5
    }
    XCTAssertEqual(try XCTUnwrap(last), 1.5, accuracy: 1e-9)
  }

  /// A walk that starts after a run is not measured with the run's cadence: the interval over
  /// the bout gap ends the run's bout.
  func testAPauseLongerThanTheBoutGapStartsANewBout() {
    var cadence = StepCadence(strideModel: model)
    for index in 0..<10 { _ = cadence.noteStep(at: Double(index) * 0.35) }
    let afterPause = cadence.noteStep(at: 9 * 0.35 + 2.5)
    XCTAssertNil(afterPause.cadence)
    XCTAssertEqual(afterPause.length, model.strideLength(cadence: 1.8), accuracy: 1e-12)
    // An interval of exactly the gap keeps the bout.
    XCTAssertEqual(
      try XCTUnwrap(cadence.noteStep(at: 9 * 0.35 + 4.5).cadence), 0.5, accuracy: 1e-12)
  }

  /// A step dated before the previous one (a source clock that restarted) begins a new bout
  /// rather than giving a negative or infinite cadence; a repeated time gives none.
  func testATimeGoingBackStartsANewBout() {
    var cadence = StepCadence(strideModel: model)
    _ = cadence.noteStep(at: 100)
    _ = cadence.noteStep(at: 100.5)
    let back = cadence.noteStep(at: 3)
    XCTAssertNil(back.cadence)
    XCTAssertNil(cadence.noteStep(at: 3).cadence)
    XCTAssertEqual(try XCTUnwrap(cadence.noteStep(at: 3.5).cadence), 4, accuracy: 1e-12)
    for step in [back] { XCTAssertTrue(step.length.isFinite && step.length > 0) }
  }

  func testEndBoutForgetsTheCadence() {
    var cadence = StepCadence(strideModel: model)
    _ = cadence.noteStep(at: 1)
    cadence.endBout()
    XCTAssertNil(cadence.noteStep(at: 1.5).cadence)
  }
}
