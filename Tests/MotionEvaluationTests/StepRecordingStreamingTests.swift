// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import MotionEvaluation

/// `motionctl steps` counts while it reads (`StepRecording.count`): the same steps, distance and
/// floors as a recording loaded whole.
final class StepRecordingStreamingTests: XCTestCase {
  /// The simulated stairs (steps and a barometer: two floors up, two down) and lift, written to a
  /// recording and counted both ways.
  func testCountingWhileReadingEqualsCountingALoadedRecording() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("step-streaming-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for scenario in ["stairs", "lift"] {
      var stream = SimulatedSensorStream(scenario: try Scenario.named(scenario), seed: 3)
      let url = folder.appendingPathComponent("\(scenario).csv")
      let writer = try RecordingWriter(url: url, descriptor: stream.descriptor)
      while let sample = try stream.next() { try writer.append(sample) }
      try writer.finish()

      let recording = try StepRecording.load(url)
      XCTAssertTrue(recording.hasPressure, scenario)
      let loaded = StepCount(
        times: recording.times, accelerations: recording.accelerations, userHeight: 1.8)
      let loadedFloors = try XCTUnwrap(loaded.floors(pressures: recording.pressures))

      let (streamed, streamedFloors) = try StepRecording.count(url, userHeight: 1.8)
      XCTAssertGreaterThan(streamed.stepTimes.count, 20, scenario)
      XCTAssertEqual(streamed, loaded, scenario)
      XCTAssertEqual(streamedFloors?.ascended, loadedFloors.ascended, scenario)
      XCTAssertEqual(streamedFloors?.descended, loadedFloors.descended, scenario)
    }
  }

  /// Without a barometer there are no floors (not zero floors), and the file is read once.
  func testNoPressureNoFloors() throws {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("step-streaming-\(UUID().uuidString).csv")
    defer { try? FileManager.default.removeItem(at: url) }
    var text = "t,ax,ay,az\n"
    for i in 0..<500 { text += "\(Double(i) / 100),0,0,9.81\n" }
    try Data(text.utf8).write(to: url)
    let (count, floors) = try StepRecording.count(url)
    XCTAssertEqual(count.stepTimes, [])
    XCTAssertNil(floors)
  }
}
