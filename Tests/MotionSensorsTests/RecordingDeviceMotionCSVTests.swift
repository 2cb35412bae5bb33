// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// CSVs of Core Motion's device motion: MotionSense's `A_DeviceMotion_data` layout (an unnamed
/// row-number column, rows at 50 Hz) and loggers that write a `timestamp` column.
final class RecordingDeviceMotionCSVTests: XCTestCase {
  private let g = 9.80665
  private let motionSenseHeader =
    ",attitude.roll,attitude.pitch,attitude.yaw,gravity.x,gravity.y,gravity.z,rotationRate.x,"
    + "rotationRate.y,rotationRate.z,userAcceleration.x,userAcceleration.y,userAcceleration.z\n"

  func testMotionSenseRowsAreReplayedAsTheSensorsApplesSplitAsGroundTruth() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      motionSenseHeader
        + "0,1.5,-0.7,0.2,0.0,-0.5,-0.8,0.1,0.2,0.3,0.05,0.0,-0.1\n"
        + "1,1.5,-0.7,0.2,0.0,-0.6,-0.8,0.4,0.5,0.6,0.0,0.25,0.0\n",
      to: "sub_1.csv")
    XCTAssertEqual(try RecordingFormat.detect(url), .deviceMotion)
    var stream = try RecordingReader.open(url)
    XCTAssertEqual(stream.descriptor.sensors, [.accelerometer, .gyroscope])
    XCTAssertTrue(stream.descriptor.hasGroundTruth)
    XCTAssertTrue(stream.descriptor.metadata["clock"]?.contains("row number") ?? false)
    XCTAssertEqual(stream.descriptor.sampleTiming, .deviceMotionInstants)
    let samples = try stream.collect()
    XCTAssertEqual(samples.map(\.timestamp), [0, 0.02])
    // Core Motion's acceleration is gravity + user acceleration (g, Apple's sign); specific
    // force is −9.80665 times it.
    let first = try XCTUnwrap(samples[0].accelerometer)
    XCTAssertEqual(first.x, -0.05 * g, accuracy: 1e-12)
    XCTAssertEqual(first.y, 0.5 * g, accuracy: 1e-12)
    XCTAssertEqual(first.z, 0.9 * g, accuracy: 1e-12)
    XCTAssertEqual(samples[1].gyroscope, SIMD3(0.4, 0.5, 0.6))
    let truth = try XCTUnwrap(samples[1].groundTruth)
    XCTAssertEqual(truth.gravity?.y ?? 0, -0.6 * g, accuracy: 1e-12)
    XCTAssertEqual(truth.linearAcceleration?.y ?? 0, -0.25 * g, accuracy: 1e-12)
  }

  func testATimestampColumnIsTheClock() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      "timestamp,gravity.x,gravity.y,gravity.z,rotationRate.x,rotationRate.y,rotationRate.z,"
        + "userAcceleration.x,userAcceleration.y,userAcceleration.z\n"
        + "812.50,0,0,-1,0,0,0,0,0,0\n812.51,0,0,-1,0,0,0,0,0,0\n",
      to: "motion.csv")
    let samples = try RecordingReader.readSamples(url)
    XCTAssertEqual(samples.map(\.timestamp), [812.50, 812.51])
    // Face up at rest: (0, 0, −1) g is specific force (0, 0, +g).
    XCTAssertEqual(samples[0].accelerometer, SIMD3(-0.0, -0.0, g))
  }

  /// One row going back in time is skipped by every table reading the shared time column (the
  /// accelerometer's two halves, the gyroscope), and counted once: it was counted three times.
  func testARowSkippedForItsTimeIsCountedOnce() throws {
    let folder = try RecordingFixtureFolder()
    let row = ",0,0,-1,0,0,0,0,0,0\n"
    let url = try folder.write(
      "timestamp,gravity.x,gravity.y,gravity.z,rotationRate.x,rotationRate.y,rotationRate.z,"
        + "userAcceleration.x,userAcceleration.y,userAcceleration.z\n"
        + ["1.00", "1.02", "1.01", "1.04", "nan", "1.06"].map { $0 + row }.joined(),
      to: "motion.csv")
    var stream = try RecordingReader.open(url, options: .init(invalidRows: .skip))
    let samples = try stream.collect()
    XCTAssertEqual(samples.map(\.timestamp), [1.00, 1.02, 1.04, 1.06])
    XCTAssertEqual(stream.skippedRowCount, 2, "the row going back and the NaN time, once each")
  }

  func testWithoutATimeColumnItIsAClearError() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      "index,gravity.x,gravity.y,gravity.z,rotationRate.x,rotationRate.y,rotationRate.z,"
        + "userAcceleration.x,userAcceleration.y,userAcceleration.z\n0,0,0,-1,0,0,0,0,0,0\n",
      to: "untimed.csv")
    XCTAssertThrowsError(try RecordingReader.readSamples(url)) { error in
      XCTAssertTrue("\(error)".contains("no time"), "\(error)")
    }
  }
}
