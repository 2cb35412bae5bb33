// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

/// `motionctl altitude` and `motionctl monitor pedometer|activity|altitude`.
final class MotionctlHistoryCommandTests: XCTestCase {
  func testAltitudeReadsTheSharedAltitudeTables() throws {
    let folder = try makeTemporaryDirectory(for: self)
    // The two layouts of ../shared/data/altitude/README.md; 1 m up is about 11.5 Pa near 96.5 kPa.
    let hackers = folder.appendingPathComponent("session1_barometer.csv")
    try
      "t,unix_time,pressure_kpa,apple_relative_altitude_m\n0,1473500000,96.5,0\n1.4,1473500001.4,96.4885,1\n"
      .write(to: hackers, atomically: true, encoding: .utf8)
    let ipin = folder.appendingPathComponent("T01_R01_pressure.csv")
    try "t,pressure_hpa\n10.0,965.00\n10.2,964.885\n".write(
      to: ipin, atomically: true, encoding: .utf8)

    let result = try MotionctlRunner.run(["altitude", "--json", hackers.path, ipin.path])
    XCTAssertEqual(result.status, 0, result.standardError)
    let objects = result.standardOutput.split(separator: "\n").map { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
    XCTAssertEqual(objects.count, 2)
    for object in objects {
      let samples = try XCTUnwrap(object?["samples"] as? [[String: Double]])
      XCTAssertEqual(samples.count, 2)
      XCTAssertEqual(samples[0]["relative_altitude_m"], 0)
      XCTAssertEqual(samples[0]["pressure_kpa"]!, 96.5, accuracy: 1e-9)
      // The altitude is the standard-atmosphere difference of the reported (lightly smoothed)
      // pressures, to the printed 0.1 mm, as on iPhones; 11.5 Pa at 96.5 kPa is 0.996 m, which the
      // 0.1 s smoothing reaches within 14 % after the IPIN file's 0.2 s step (1 − e⁻²) and fully
      // after the 1.4 s one.
      let height = { (p: Double) in 44_330.77 * (1 - Foundation.pow(p / 101.325, 0.190_263)) }
      let reported = samples[1]["pressure_kpa"]!
      XCTAssertEqual(
        samples[1]["relative_altitude_m"]!, height(reported) - height(96.5), accuracy: 1e-4)
      XCTAssertEqual(samples[1]["relative_altitude_m"]!, 0.9959, accuracy: 0.14)
    }
    XCTAssertEqual(objects[1]?["file"] as? String, ipin.path)

    let text = try MotionctlRunner.run(["altitude", hackers.path])
    XCTAssertEqual(text.standardOutput.split(separator: "\n").count, 2)
  }

  func testMonitorPedometerActivityAndAltitude() throws {
    let pedometer = try MotionctlRunner.run([
      "monitor", "pedometer", "--source", "simulator:walk?speed=max",
    ])
    XCTAssertEqual(pedometer.status, 0, pedometer.standardError)
    let lines = pedometer.standardOutput.split(separator: "\n")
    XCTAssertTrue(lines.first?.hasSuffix("resume") ?? false, pedometer.standardOutput)
    let counts = lines.compactMap { line -> Int? in
      guard let range = line.range(of: "steps ") else { return nil }
      return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
    XCTAssertGreaterThan(counts.count, 5)
    XCTAssertEqual(counts, counts.sorted(), "cumulative")
    // The walk: 20 s at 1.8 steps/s; ±25 % (the detector's accuracy is tested elsewhere).
    XCTAssertEqual(Double(counts.last ?? 0), 36, accuracy: 9)

    let activity = try MotionctlRunner.run([
      "monitor", "activity", "--source", "simulator:walk?speed=max",
    ])
    XCTAssertEqual(activity.status, 0, activity.standardError)
    XCTAssertTrue(activity.standardOutput.contains("activity "), activity.standardOutput)
    XCTAssertTrue(activity.standardOutput.contains("walking"), activity.standardOutput)

    let altitude = try MotionctlRunner.run([
      "monitor", "altitude", "--source", "simulator:walk?speed=max",
    ])
    XCTAssertEqual(altitude.status, 0, altitude.standardError)
    XCTAssertTrue(
      altitude.standardOutput.contains("relative altitude    +0.00 m"), altitude.standardOutput)

    // COREMOTION_AUTHORIZATION=denied: the handler receives CMErrorMotionActivityNotAuthorized.
    let denied = try MotionctlRunner.run(
      ["monitor", "pedometer", "--source", "simulator:walk?speed=max"],
      environment: ["COREMOTION_AUTHORIZATION": "denied"])
    XCTAssertNotEqual(denied.status, 0)
    XCTAssertTrue(denied.standardError.contains("not authorized"), denied.standardError)

    let none = try MotionctlRunner.run(["monitor", "pedometer", "--source", "none"])
    XCTAssertNotEqual(none.status, 0)
    XCTAssertTrue(none.standardError.contains("no accelerometer"), none.standardError)
  }
}
