// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionEvaluation
import XCTest

/// The shared activity layout's two unit conventions are told apart and converted to g with
/// Apple's sign (face up at rest reads (0, 0, −1)).
final class ActivityRecordingTests: XCTestCase {
  private func write(_ text: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "activity-\(UUID().uuidString).csv")
    try Data(text.utf8).write(to: url)
    addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
  }

  func testMotionSenseLayoutIsAppleG() throws {
    let url = try write("t,ax,ay,az,gx,gy,gz\n0.00,0.0,0.0,-1.0,0,0,0\n0.02,0.01,0.0,-0.99,0,0,0\n")
    let recording = try ActivityRecording.load(url)
    XCTAssertEqual(recording.units, .appleG)
    XCTAssertEqual(recording.times, [0, 0.02])
    XCTAssertEqual(recording.acceleration[0], SIMD3(0, 0, -1))
  }

  /// Android m/s² (+9.81 up at rest) becomes −a / 9.80665 g (exact to rounding: 1e-12).
  func testQROWDLayoutIsAndroidMetresPerSecondSquared() throws {
    let url = try write("t,ax,ay,az\n0.0,0.0,0.0,9.80665\n0.0667,-2.6,-9.4,1.5\n")
    let recording = try ActivityRecording.load(url)
    XCTAssertEqual(recording.units, .metresPerSecondSquared)
    XCTAssertEqual(recording.acceleration[0].z, -1, accuracy: 1e-12)
    XCTAssertEqual(recording.acceleration[1].x, 2.6 / 9.80665, accuracy: 1e-12)
  }

  /// Non-finite rows are skipped and counted; a missing file is an error, not a trap.
  func testHostileRows() throws {
    let url = try write("t,ax,ay,az\n0.0,0,0,-1\n0.02,nan,0,-1\n0.04,0,0,-1\n")
    let recording = try ActivityRecording.load(url)
    XCTAssertEqual(recording.times.count, 2)
    XCTAssertEqual(recording.skippedRows, 1)
    XCTAssertThrowsError(
      try ActivityRecording.load(URL(fileURLWithPath: "/nonexistent/activity.csv")))
  }

  /// Reading streams what loading holds: the same samples in the same units, when the file is
  /// longer than the 500 samples the unit detection looks at and when it is shorter; and the
  /// segments classified while reading are those of the loaded recording.
  func testReadingHandsOverWhatLoadingHolds() throws {
    for (rows, scale) in [(1_200, 1.0), (1_200, -9.80665), (120, 1.0), (120, -9.80665)] {
      var text = "t,ax,ay,az\n"
      for i in 0..<rows {
        let t = Double(i) / 50
        let sway = 0.05 * sin(2 * Double.pi * 1.8 * t)
        text += "\(t),\(sway * scale),0,\((-1 + sway) * scale)\n"
      }
      let url = try write(text)
      let loaded = try ActivityRecording.load(url)
      var times: [Double] = []
      var acceleration: [SIMD3<Double>] = []
      let summary = try ActivityRecording.read(url) {
        times.append($0)
        acceleration.append($1)
      }
      XCTAssertEqual(summary.units, scale == 1 ? .appleG : .metresPerSecondSquared, "\(rows)")
      XCTAssertEqual(summary.units, loaded.units)
      XCTAssertEqual(summary.sampleCount, rows)
      XCTAssertEqual(times, loaded.times)
      XCTAssertEqual(acceleration, loaded.acceleration)
      let streamed = try ActivitySegment.segments(reading: url)
      XCTAssertEqual(streamed.segments, ActivitySegment.segments(of: loaded), "\(rows)")
    }
  }
}
