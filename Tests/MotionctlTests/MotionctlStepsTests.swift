// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

/// `motionctl steps` and `motionctl evaluate steps`, end to end.
final class MotionctlStepsTests: XCTestCase {
  /// A 30 s walk at 2 steps/s in the shared steps layout (`t,ax,ay,az`, m/s², specific force),
  /// read without any format option; the JSON has every key, floors null without pressure.
  func testStepsReadsTheSharedLayoutAndPrintsJSON() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let file = folder.appendingPathComponent("walk.csv")
    var text = "t,ax,ay,az\n"
    for index in 0..<3000 {
      let t = Double(index) / 100
      let phase = 2 * Double.pi * 2 * t
      let vertical = 9.80665 * (1 + 0.25 * sin(phase) + 0.08 * sin(2 * phase + 0.7))
      text += String(format: "%.2f,%.4f,%.4f,%.4f\n", t, 0.3 * vertical, 0.2, 0.95 * vertical)
    }
    try text.write(to: file, atomically: true, encoding: .utf8)

    let result = try MotionctlRunner.run(["steps", "--json", file.path])
    XCTAssertEqual(result.status, 0, result.standardError)
    let line = try XCTUnwrap(result.standardOutput.split(separator: "\n").first)
    let object = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    XCTAssertEqual(object["file"] as? String, file.path)
    let steps = try XCTUnwrap(object["steps"] as? Int)
    XCTAssertEqual(Double(steps), 60, accuracy: 2, "30 s at 2 steps/s")
    XCTAssertEqual((object["step_times"] as? [Double])?.count, steps)
    // At 2 steps/s the stride model gives 0.426 × 1.70 m (default height) per step.
    XCTAssertEqual(
      try XCTUnwrap(object["distance_m"] as? Double), Double(steps) * 0.426 * 1.70, accuracy: 0.05)
    XCTAssertTrue(object["floors_ascended"] is NSNull)
    XCTAssertTrue(object["floors_descended"] is NSNull)
  }

  /// Floors from a recording's barometer and the detected steps: the simulated stairs (two floors
  /// up, two down, walked) and the lift (three floors up, ridden) recorded by `motionctl simulate`.
  func testStepsCountsWalkedFloorsFromThePressureColumn() throws {
    let folder = try makeTemporaryDirectory(for: self)
    for (scenario, ascended, descended) in [("stairs", 2, 2), ("lift", 0, 0)] {
      let file = folder.appendingPathComponent(scenario + ".csv")
      let simulated = try MotionctlRunner.run(["simulate", scenario, file.path])
      XCTAssertEqual(simulated.status, 0, simulated.standardError)
      let result = try MotionctlRunner.run(["steps", "--json", file.path])
      XCTAssertEqual(result.status, 0, result.standardError)
      let line = try XCTUnwrap(result.standardOutput.split(separator: "\n").first)
      let object = try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      XCTAssertEqual(object["floors_ascended"] as? Int, ascended, scenario)
      XCTAssertEqual(object["floors_descended"] as? Int, descended, scenario)
      XCTAssertGreaterThan(object["steps"] as? Int ?? 0, 30, scenario)
    }
  }

  /// `evaluate steps` on one shared recording: JSON with the recording and its set.
  func testEvaluateStepsOnASharedRecording() throws {
    let url = SharedData.root.appendingPathComponent("data/steps/ipol/1-1.csv")
    guard FileManager.default.fileExists(atPath: url.path) else {
      if SharedData.isCI { XCTFail("missing \(url.path) on CI") }
      throw XCTSkip("shared step data not found")
    }
    let result = try MotionctlRunner.run(["evaluate", "steps", url.path, "--json"])
    XCTAssertEqual(result.status, 0, result.standardError)
    let object = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let recordings = try XCTUnwrap(object["recordings"] as? [[String: Any]])
    XCTAssertEqual(recordings.count, 1)
    XCTAssertEqual(recordings.first?["file"] as? String, "ipol/1-1.csv")
    XCTAssertEqual(recordings.first?["truth"] as? Int, 35)
    XCTAssertEqual((object["sets"] as? [[String: Any]])?.first?["name"] as? String, "ipol")
  }

  func testEvaluateWithoutStepsStillMeansAttitude() throws {
    let result = try MotionctlRunner.run(["evaluate", "--help"])
    XCTAssertEqual(result.status, 0)
    XCTAssertTrue(result.standardOutput.contains("realtime9d"))
  }
}
