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

  /// Counts no walk has, in the index or the README's baseline column, are an error naming the
  /// cell: two `gt_steps` of 2^62 overflowed the summed truth, a baseline of `Int.min` the
  /// baseline's difference from the truth (traps, before). A count with too many digits for
  /// `Int` is refused too rather than taken for a blank cell.
  func testCountsBeyondAnyWalkAreRefusedNotTrappedOn() throws {
    for (truth, baseline) in [
      ("4611686018427387904", "12"), ("10", "-9223372036854775808"),
      ("99999999999999999999", "12"), ("10", "1000000001"),
    ] {
      let folder = try dataFolder(recordings: 2)
      let index = """
        file,source,position,gt_steps,gt_window_start_s,gt_window_end_s
        r0.csv,oxford-test,InHand,\(truth),0,5
        r1.csv,oxford-test,InHand,\(truth),0,5

        """
      try Data(index.utf8).write(to: folder.appendingPathComponent("index.csv"))
      let readme = """
        | file | baseline |
        | --- | --- |
        | r0.csv | \(baseline) |
        | r1.csv | \(baseline) |

        """
      try Data(readme.utf8).write(to: folder.appendingPathComponent("README.md"))
      let bad = truth == "10" ? baseline : truth
      XCTAssertThrowsError(try StepEvaluation.evaluate(paths: [folder.path]), bad) {
        XCTAssertTrue("\($0)".contains(", \(bad), is not a step count"), "\($0)")
      }
    }
    // In range, the same tables are scored.
    let folder = try dataFolder(recordings: 2)
    try Data("| file | baseline |\n| --- | --- |\n| r0.csv | 1000000000 |\n| r1.csv | - |\n".utf8)
      .write(to: folder.appendingPathComponent("README.md"))
    let result = try StepEvaluation.evaluate(paths: [folder.path])
    XCTAssertEqual(result.recordings.map(\.baselineSteps), [1_000_000_000, nil])
  }

  /// Paths that overlap (one folder twice, a folder and a file in it, the same file spelt two
  /// ways) score each recording once: counted twice, it weighed double in every statistic.
  func testOverlappingPathsScoreEachRecordingOnce() throws {
    let folder = try dataFolder(recordings: 3)
    let once = try StepEvaluation.evaluate(paths: [folder.path])
    XCTAssertEqual(once.recordings.count, 3)
    let file = folder.appendingPathComponent("r1.csv").path
    let twice = try StepEvaluation.evaluate(paths: [
      folder.path, folder.path + "/", file, folder.path + "/./r1.csv",
    ])
    XCTAssertEqual(twice, once)
    XCTAssertEqual(twice.sets.first?.ours.recordings, 3)
  }
}
