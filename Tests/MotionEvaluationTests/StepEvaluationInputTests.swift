// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionEvaluation

/// The paths and tables `evaluate steps` is given come from outside: a path that names nothing,
/// an overlap between paths and counts no walk has are each an error or left out, never a
/// silent skip, a recording scored twice or a trap.
final class StepEvaluationInputTests: XCTestCase {
  /// A folder with `recordings` one-row recordings (no step) and an `index.csv` giving each a
  /// truth of 10 steps.
  private func dataFolder(recordings: Int) throws -> URL {
    let folder = try temporaryFolder("step-evaluation-input")
    var index = "file,source,position,gt_steps,gt_window_start_s,gt_window_end_s\n"
    for i in 0..<recordings {
      try Data("t,ax,ay,az\n0,0,0,9.81\n".utf8).write(
        to: folder.appendingPathComponent("r\(i).csv"))
      index += "r\(i).csv,oxford-test,InHand,10,0,5\n"
    }
    try Data(index.utf8).write(to: folder.appendingPathComponent("index.csv"))
    return folder
  }

  /// A misspelt path among good ones is an error naming it, not a run that scores the others
  /// and says nothing of it.
  func testAPathThatNamesNothingIsAnError() throws {
    let folder = try dataFolder(recordings: 1)
    XCTAssertEqual(try StepEvaluation.evaluate(paths: [folder.path]).recordings.count, 1)
    XCTAssertThrowsError(try StepEvaluation.evaluate(paths: [folder.path, "/nonexistent.csv"])) {
      XCTAssertEqual("\($0)", "/nonexistent.csv: no such file or folder")
    }
  }
}
