// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionEvaluation

/// `evaluate steps` reads each folder's `index.csv` and README once for the run (attack A,
/// finding 6: re-reading them for every recording made 3 000 recordings take over a minute).
final class StepGroundTruthIndexTests: XCTestCase {
  /// One folder's recordings and their index, with a README baseline table.
  private func dataFolder(recordings: Int) throws -> URL {
    let folder = try temporaryFolder("step-truth-index")
    let sub = folder.appendingPathComponent("set")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    var index = "file,source,position,gt_steps,gt_window_start_s,gt_window_end_s\n"
    var readme = "# Steps\n\n| file | baseline |\n| --- | --- |\n"
    for i in 0..<recordings {
      try Data("t,ax,ay,az\n0,0,0,9.81\n".utf8).write(
        to: sub.appendingPathComponent("r\(i).csv"))
      index += "set/r\(i).csv,oxford-test,InHand,\(10 + i),0,\(5 + i)\n"
      readme += "| set/r\(i).csv | \(20 + i) |\n"
    }
    // A later duplicate row of a name does not replace the first, as before.
    index += "set/r0.csv,other,Bag,99,0,1\n"
    try Data(index.utf8).write(to: folder.appendingPathComponent("index.csv"))
    try Data(readme.utf8).write(to: folder.appendingPathComponent("README.md"))
    return folder
  }

  /// With one cache, every recording gets the truth the uncached look-up gives, and the index
  /// and README are not read again: removed after the first look-up, they still answer for the
  /// other recordings of the folder.
  func testEachFolderIndexIsReadOncePerRun() throws {
    let folder = try dataFolder(recordings: 5)
    let urls = (0..<5).map { folder.appendingPathComponent("set/r\($0).csv") }
    let uncached = try urls.map { try StepGroundTruth.load(for: $0) }

    let indexes = StepGroundTruth.IndexCache()
    let first = try StepGroundTruth.load(for: urls[0], indexes: indexes)
    XCTAssertEqual(first, uncached[0])
    XCTAssertEqual(first?.steps, 10)
    XCTAssertEqual(first?.set, "oxford-test")
    XCTAssertEqual(first?.baselineSteps, 20)
    try FileManager.default.removeItem(at: folder.appendingPathComponent("index.csv"))
    try FileManager.default.removeItem(at: folder.appendingPathComponent("README.md"))
    for i in 1..<5 {
      let truth = try StepGroundTruth.load(for: urls[i], indexes: indexes)
      XCTAssertEqual(truth, uncached[i])
      XCTAssertEqual(truth?.steps, 10 + i)
      XCTAssertEqual(truth?.window, 0...Double(5 + i))
      XCTAssertEqual(truth?.baselineSteps, 20 + i)
    }
    // A fresh look-up (a new run) reads the folder again and finds nothing now.
    XCTAssertNil(try StepGroundTruth.load(for: urls[1]))
  }

  /// The whole evaluation gives the same scores as before on a folder of many recordings.
  func testEvaluationScoresEveryRecordingOfTheIndex() throws {
    let folder = try dataFolder(recordings: 40)
    let result = try StepEvaluation.evaluate(paths: [folder.path])
    XCTAssertEqual(result.recordings.count, 40)
    XCTAssertEqual(Set(result.recordings.map(\.file)).count, 40)
    for recording in result.recordings {
      let i = try XCTUnwrap(Int(recording.file.dropFirst("set/r".count).dropLast(".csv".count)))
      XCTAssertEqual(recording.truth, 10 + i)
      XCTAssertEqual(recording.baselineSteps, 20 + i)
    }
  }
}
