// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionSensors

final class RecordingBROADTests: XCTestCase {
  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("RecordingBROADTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  private func write(_ text: String, _ name: String = "trial.csv") throws -> URL {
    let url = directory.appendingPathComponent(name)
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  private let header =
    "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,ref_qw,ref_qx,ref_qy,ref_qz,movement\n"

  func testFixtureRowsBecomeSamplesWithNWUGroundTruth() throws {
    let url = try write(
      header
        + "0.000000,0.1,0.2,0.3,1,2,9.8,10,20,-40,1,0,0,0,0\n"
        + "0.003500,-0.1,3.913601e-19,0,1.5,-2,9.7,11,21,-41,nan,nan,nan,nan,1\r\n"
        + "0.007000,0,0,0,0,0,9.81,0,0,0,0.7071067811865476,0,0,0.7071067811865476,1\n")
    var stream = try RecordingReader.open(url)
    XCTAssertEqual(stream.format, .broad)
    XCTAssertEqual(stream.descriptor.sensors, .nineAxis)
    XCTAssertTrue(stream.descriptor.hasGroundTruth)
    XCTAssertEqual(stream.descriptor.nominalSampleRate!, 1 / 0.0035, accuracy: 1e-9)
    let samples = try stream.collect()
    XCTAssertEqual(samples.count, 3)
    XCTAssertEqual(samples[0].timestamp, 0)
    XCTAssertEqual(samples[0].gyroscope, SIMD3(0.1, 0.2, 0.3))
    XCTAssertEqual(samples[0].accelerometer, SIMD3(1, 2, 9.8))
    XCTAssertEqual(samples[0].magnetometer, SIMD3(10, 20, -40))
    XCTAssertEqual(samples[1].gyroscope?.y, 3.913601e-19)
    XCTAssertEqual(samples[1].timestamp, 0.0035)

    // Identity in ENU: the sensor's x axis points east, which is −y (west) in NWU.
    let q0 = try XCTUnwrap(samples[0].groundTruth?.earthFromSensor)
    let east = q0.act(on: SIMD3(1, 0, 0))
    XCTAssertEqual(east.x, 0, accuracy: 1e-12)  // rotation arithmetic: a few ulps
    XCTAssertEqual(east.y, -1, accuracy: 1e-12)
    XCTAssertEqual(samples[0].groundTruth?.isMovementPhase, false)

    // Occluded reference: attitude unknown, movement flag still known.
    XCTAssertNil(samples[1].groundTruth?.earthFromSensor)
    XCTAssertEqual(samples[1].groundTruth?.isMovementPhase, true)

    // 90° about up in ENU: sensor x points north, which is +x in NWU.
    let q2 = try XCTUnwrap(samples[2].groundTruth?.earthFromSensor)
    let expected =
      EarthFrame.eastNorthUp.rotation(to: .northWestUp)
      * Quaternion(w: 0.7071067811865476, x: 0, y: 0, z: 0.7071067811865476)
    XCTAssertEqual(q2, expected)
    let north = q2.act(on: SIMD3(1, 0, 0))
    XCTAssertEqual(north.x, 1, accuracy: 1e-12)
  }

  func testRealTrialParsesCompletely() throws {
    guard let url = SharedData.broadTrial("01_undisturbed_slow_rotation_A.csv") else {
      if SharedData.isCI { XCTFail("BROAD trial missing on CI") }
      throw XCTSkip("BROAD data not available")
    }
    let start = Date()
    let samples = try BROADTrial.load(url)
    let elapsed = Date().timeIntervalSince(start)
    let text = try String(contentsOf: url, encoding: .utf8)
    let lines = text.split(separator: "\n").count
    XCTAssertEqual(samples.count, lines - 1)
    XCTAssertEqual(samples.first?.accelerometer?.z, 9.919315)
    XCTAssertEqual(samples.first?.gyroscope?.x, -0.001064651)
    // Consecutive timestamps are 3.5 ms apart (written with 6 decimals).
    for i in 1..<samples.count {
      XCTAssertEqual(samples[i].timestamp - samples[i - 1].timestamp, 0.0035, accuracy: 1e-9)
      if samples[i].timestamp - samples[i - 1].timestamp > 0.0036 { break }
    }
    // Ground-truth attitudes are unit quaternions where present.
    let known = samples.compactMap { $0.groundTruth?.earthFromSensor }
    XCTAssertGreaterThan(known.count, samples.count / 2)
    // The CSV holds 7-digit values.
    for q in known.prefix(1000) { XCTAssertEqual(q.length, 1, accuracy: 1e-5) }
    print("BROAD trial 01: \(samples.count) samples in \(elapsed) s (debug build)")
  }
}
