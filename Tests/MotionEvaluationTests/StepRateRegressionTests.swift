// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionEvaluation
import XCTest
import _MotionTestSupport

/// The step counter at the rates phones deliver: the Oxford recordings (100–400 Hz; Oxford Step
/// Counter DataSet, CC BY 4.0) averaged over 1/rate intervals first, scored as at their own rate.
/// Bounds: the targets (MAPE ≤ 1.5 % optimisation, ≤ 2.0 % validation), met at 50 Hz with
/// 1.26 % / 0.24 % and at 25 Hz with 1.46 % / 0.47 % when set (docs/Steps.md). Missing data skips
/// locally and fails on CI.
final class StepRateRegressionTests: XCTestCase {
  private func evaluate(at rate: Double) throws -> StepEvaluation.Result {
    let folder = SharedData.root.appendingPathComponent("data/steps/oxford")
    guard FileManager.default.fileExists(atPath: folder.path) else {
      if SharedData.isCI { XCTFail("missing ../shared/data/steps/oxford on CI") }
      throw XCTSkip("step data not found under \(folder.path)")
    }
    return try StepEvaluation.evaluate(paths: [folder.path], rate: rate)
  }

  func testOxfordTargetsHoldAtFiftyAndTwentyFiveHertz() throws {
    for rate in [50.0, 25.0] {
      let result = try evaluate(at: rate)
      XCTAssertEqual(result.recordings.count, 37, "\(rate) Hz")
      let optimisation = try XCTUnwrap(result.sets.first { $0.name == "oxford-optimisation" })
      let validation = try XCTUnwrap(result.sets.first { $0.name == "oxford-validation" })
      XCTAssertLessThanOrEqual(
        optimisation.ours.mape, StepTargets.optimisationMAPE, "\(rate) Hz: \(optimisation.ours)")
      XCTAssertLessThanOrEqual(
        validation.ours.mape, StepTargets.validationMAPE, "\(rate) Hz: \(validation.ours)")
    }
  }

  /// The rate is checked before any file is read, so no path is needed to see the error.
  func testARateThatIsNotARateIsAClearError() {
    for (rate, shown) in [(0.0, "0.0"), (-1, "-1.0"), (.nan, "nan"), (.infinity, "inf")] {
      XCTAssertThrowsError(try StepEvaluation.evaluate(paths: [], rate: rate)) {
        XCTAssertEqual("\($0)", "the rate must be a positive number of Hz, not \(shown)")
      }
    }
  }
}
