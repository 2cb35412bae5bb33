// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

/// `motionctl evaluate --apple-agreement` on recordings other than the MotionSense layout:
/// SensorLog logs (each sensor group on its own clock) and device-motion CSVs are replayed as
/// `CMMotionManager` would fuse them and compared at Apple's logged instants.
final class MotionctlAppleAgreementTests: XCTestCase {
  /// A phone swinging about its x axis, θ(t) = 0.5 sin(0.6 t) rad, at rest otherwise: Core
  /// Motion's acceleration (g, Apple's sign) is the gravity direction in the sensor frame,
  /// `(0, −sin θ, −cos θ)`, and the rate `(θ′, 0, 0)` rad/s. Apple's logged gravity is that
  /// direction turned by `appleTilt` about x (so exactly `appleTilt` away from the truth).
  private struct Swing {
    var appleTilt = 0.0

    func angle(_ t: Double) -> Double { 0.5 * sin(0.6 * t) }
    func rate(_ t: Double) -> Double { 0.3 * cos(0.6 * t) }
    func down(_ t: Double, tilt: Double = 0) -> [Double] {
      let theta = angle(t) + tilt
      return [0, -sin(theta), -cos(theta)]
    }
  }

  private static let sensorLogHeader =
    "loggingTime(txt),loggingSample(N),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),"
    + "accelerometerAccelerationY(G),accelerometerAccelerationZ(G),gyroTimestamp_sinceReboot(s),gyroRotationX(rad/s),"
    + "gyroRotationY(rad/s),gyroRotationZ(rad/s),motionTimestamp_sinceReboot(s),"
    + "motionRotationRateX(rad/s),motionRotationRateY(rad/s),motionRotationRateZ(rad/s),motionUserAccelerationX(G),"
    + "motionUserAccelerationY(G),motionUserAccelerationZ(G),motionAttitudeReferenceFrame(txt),motionQuaternionX(R),"
    + "motionQuaternionY(R),motionQuaternionZ(R),motionQuaternionW(R),motionGravityX(G),motionGravityY(G),motionGravityZ(G)"

  /// 30 s at 100 Hz; the gyroscope ticks 1 ms after the accelerometer and device motion 2 ms
  /// after it, each with its own timestamp, as SensorLog logs them.
  private func sensorLog(_ swing: Swing) -> String {
    var lines = [Self.sensorLogHeader]
    for row in 0..<3_000 {
      let t = 1_000 + Double(row) * 0.01
      let cells: [Double] =
        [t] + swing.down(t) + [t + 0.001, swing.rate(t + 0.001), 0, 0]
        + [t + 0.002, swing.rate(t + 0.002), 0, 0, 0, 0, 0]
      let motionTail =
        ["XArbitraryZVertical", "0", "0", "0", "1"]
        + swing.down(t + 0.002, tilt: swing.appleTilt).map { "\($0)" }
      let numbers = cells.map { "\($0)" }
      lines.append(
        (["2026-11-29T10:00:00.000+01:00", "\(row)"] + numbers[0..<11] + numbers[11...]
          + motionTail).joined(separator: ","))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The same swing as Core Motion device-motion rows with a `timestamp` column, 50 Hz.
  private func deviceMotionCSV(_ swing: Swing) -> String {
    var lines = [
      "timestamp,gravity.x,gravity.y,gravity.z,rotationRate.x,rotationRate.y,rotationRate.z,"
        + "userAcceleration.x,userAcceleration.y,userAcceleration.z"
    ]
    for row in 0..<1_500 {
      let t = 500 + Double(row) * 0.02
      // Apple's gravity is the tilted one; the acceleration (gravity + user acceleration) is
      // still the true direction, so user acceleration takes up the difference.
      let apple = swing.down(t, tilt: swing.appleTilt)
      let truth = swing.down(t)
      let user = zip(truth, apple).map { $0 - $1 }
      lines.append(
        ([t] + apple + [swing.rate(t), 0, 0] + user).map { "\($0)" }.joined(separator: ","))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  private func agreement(_ file: URL, _ extra: [String] = []) throws -> [String: Any] {
    let result = try MotionctlRunner.run(
      ["evaluate", "--apple-agreement", "--json", file.path] + extra)
    XCTAssertEqual(result.status, 0, result.standardError)
    let object = try result.firstJSONObject()
    let trials = try XCTUnwrap(object["trials"] as? [[String: Any]])
    XCTAssertEqual(trials.count, 1)
    return trials[0]
  }

  func testSensorLogAndDeviceMotionFilesAreComparedAtApplesInstants() throws {
    let folder = try makeTemporaryDirectory(for: self)
    for (name, make, rows) in [
      ("swing_sensorlog.csv", sensorLog, 3_000), ("swing_devicemotion.csv", deviceMotionCSV, 1_500),
    ] as [(String, (Swing) -> String, Int)] {
      let agreeing = folder.appendingPathComponent(name)
      try make(Swing()).write(to: agreeing, atomically: true, encoding: .utf8)
      let same = try agreement(agreeing)
      // Noiseless: what remains is the filter's lag through the swing (a fraction of a degree).
      XCTAssertLessThan(try XCTUnwrap(same["median"] as? Double), 1, "\(name): \(same)")
      XCTAssertLessThan(try XCTUnwrap(same["p95"] as? Double), 2, "\(name): \(same)")
      // Every one of Apple's instants found an update (within 25 ms); no reference figures.
      XCTAssertEqual(same["count"] as? Int, rows, name)
      XCTAssertNil(same["referenceMedian"] as? Double)

      // Apple's gravity 10° off the truth reads as 10°: the directions are compared in one
      // frame with one sign (a sign error would read 170°, a frame error anything).
      let tilted = folder.appendingPathComponent("tilted_" + name)
      try make(Swing(appleTilt: 10 * .pi / 180)).write(
        to: tilted, atomically: true, encoding: .utf8)
      let off = try agreement(tilted)
      XCTAssertEqual(try XCTUnwrap(off["median"] as? Double), 10, accuracy: 1, "\(name): \(off)")
    }
  }

  /// A real iPhone recording (MotionSense, subject 2 walking, 50 Hz) written as a device-motion
  /// CSV: replayed through `CMMotionManager`'s fusion, which the reader tells that the samples
  /// are Core Motion's instants, it gives what the MotionSense path measures row by row with the
  /// same timing (per-file median and 95th percentile within 1e-6°).
  func testADeviceMotionCSVReplaysAsTheMotionSensePathMeasuresIt() throws {
    let shared = SharedData.root.appendingPathComponent(
      "data/activity/motionsense/sub02_wlk_08.csv")
    guard FileManager.default.fileExists(atPath: shared.path) else {
      if SharedData.isCI { XCTFail("missing \(shared.path)") }
      throw XCTSkip("the shared MotionSense data is not beside the repository")
    }
    let lines = try String(contentsOf: shared, encoding: .utf8).split(separator: "\n")
    let names = lines[0].split(separator: ",").map(String.init)
    func column(_ name: String) throws -> Int { try XCTUnwrap(names.firstIndex(of: name), name) }
    let t = try column("t")
    let acceleration = try ["ax", "ay", "az"].map(column)
    let rate = try ["gx", "gy", "gz"].map(column)
    let gravity = try ["apple_gravity_x", "apple_gravity_y", "apple_gravity_z"].map(column)
    var rows = [
      "timestamp,gravity.x,gravity.y,gravity.z,rotationRate.x,rotationRate.y,rotationRate.z,"
        + "userAcceleration.x,userAcceleration.y,userAcceleration.z"
    ]
    for line in lines.dropFirst() {
      let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let g = gravity.map { Double(cells[$0]) ?? .nan }
      // Apple's acceleration is gravity + user acceleration; the layout keeps their sum.
      let user = zip(acceleration, g).map { (Double(cells[$0.0]) ?? .nan) - $0.1 }
      rows.append(
        ([cells[t]] + g.map { "\($0)" } + rate.map { cells[$0] } + user.map { "\($0)" })
          .joined(separator: ","))
    }
    let folder = try makeTemporaryDirectory(for: self)
    let converted = folder.appendingPathComponent("sub02_wlk_08.csv")
    try (rows.joined(separator: "\n") + "\n").write(
      to: converted, atomically: true, encoding: .utf8)

    let measured = try agreement(shared)
    let replayed = try agreement(converted)
    for key in ["median", "p95"] {
      let expected = try XCTUnwrap(measured[key] as? Double, key)
      XCTAssertEqual(try XCTUnwrap(replayed[key] as? Double, key), expected, accuracy: 1e-6, key)
    }
    XCTAssertEqual(replayed["count"] as? Int, measured["count"] as? Int)
  }

  /// A folder: its CSV files (and zip archives, as SensorLog exports them) in name order; other
  /// files are not read.
  func testAFolderOfRecordingsIsReadFileByFile() throws {
    let folder = try makeTemporaryDirectory(for: self)
    try sensorLog(Swing()).write(
      to: folder.appendingPathComponent("a_log.csv"), atomically: true, encoding: .utf8)
    try deviceMotionCSV(Swing()).write(
      to: folder.appendingPathComponent("b_motion.csv"), atomically: true, encoding: .utf8)
    try "notes".write(
      to: folder.appendingPathComponent("README.txt"), atomically: true, encoding: .utf8)
    let result = try MotionctlRunner.run(["evaluate", "--apple-agreement", "--json", folder.path])
    XCTAssertEqual(result.status, 0, result.standardError)
    let object = try result.firstJSONObject()
    let trials = try XCTUnwrap(object["trials"] as? [[String: Any]])
    XCTAssertEqual(trials.compactMap { $0["name"] as? String }, ["a_log", "b_motion"])
  }

  func testFilesWithoutApplesDeviceMotionAndLayoutOnlyOptionsAreRefused() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let plain = folder.appendingPathComponent("plain.csv")
    try "t,ax,ay,az,gx,gy,gz\n0,0,0,-1,0,0,0\n0.02,0,0,-1,0,0,0\n".write(
      to: plain, atomically: true, encoding: .utf8)
    let refused = try MotionctlRunner.run(["evaluate", "--apple-agreement", plain.path])
    XCTAssertNotEqual(refused.status, 0)
    XCTAssertTrue(refused.standardError.contains("no Apple device motion"), refused.standardError)
    XCTAssertTrue(refused.standardError.contains("apple_gravity_x"), refused.standardError)

    let log = folder.appendingPathComponent("log.csv")
    try sensorLog(Swing()).write(to: log, atomically: true, encoding: .utf8)
    let decimated = try MotionctlRunner.run(
      ["evaluate", "--apple-agreement", "--decimate", "3", log.path])
    XCTAssertNotEqual(decimated.status, 0)
    XCTAssertTrue(
      decimated.standardError.contains("--decimate and --set apply to the MotionSense layout"),
      decimated.standardError)
  }
}
