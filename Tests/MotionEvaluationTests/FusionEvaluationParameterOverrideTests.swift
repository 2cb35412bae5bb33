// SPDX-License-Identifier: Apache-2.0

import MotionEvaluation
import MotionFusion
import XCTest

/// `motionctl evaluate --set NAME=VALUE`: numbers by name, the Boolean parameters with 0 or 1,
/// and a clear error for a name that is none of them.
final class FusionEvaluationParameterOverrideTests: XCTestCase {
  func testFlagsAreSetWithZeroOrOne() throws {
    let set = try FusionEvaluation.parameters(
      with: ["rawFieldIsCalibrated=1", "usesCalibratedFieldForHeading=0", "gyroscopeDelay=0.004"])
    XCTAssertTrue(set.rawFieldIsCalibrated)
    XCTAssertFalse(set.usesCalibratedFieldForHeading)
    XCTAssertEqual(set.gyroscopeDelay, 0.004)
    let cleared = try FusionEvaluation.parameters(overriding: set, with: ["rawFieldIsCalibrated=0"])
    XCTAssertFalse(cleared.rawFieldIsCalibrated)
  }

  func testAnUnknownNameListsTheFlagsToo() {
    XCTAssertThrowsError(try FusionEvaluation.parameters(with: ["noSuchParameter=1"])) { error in
      let text = "\(error)"
      XCTAssertTrue(text.contains("unknown parameter \"noSuchParameter\""), text)
      XCTAssertTrue(text.contains("rawFieldIsCalibrated"), text)
      XCTAssertTrue(text.contains("usesCalibratedFieldForHeading"), text)
      XCTAssertTrue(text.contains("gyroscopeDelay"), text)
    }
  }
}
