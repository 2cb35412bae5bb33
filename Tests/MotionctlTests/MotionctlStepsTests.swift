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
    let object = try result.firstJSONObject()
    XCTAssertEqual(object["file"] as? String, file.path)
    let steps = try XCTUnwrap(object["steps"] as? Int)
    XCTAssertEqual(Double(steps), 60, accuracy: 2, "30 s at 2 steps/s")
    XCTAssertEqual((object["step_times"] as? [Double])?.count, steps)
    // At 2 steps/s the stride model gives 0.426 × 1.70 m (default height) per step.
    XCTAssertEqual(
      try XCTUnwrap(object["distance_m"] as? Double), Double(steps) * 0.426 * 1.70, accuracy: 0.05)
    XCTAssertTrue(object["floors_ascended"] is NSNull)
    XCTAssertTrue(object["floors_descended"] is NSNull)
    XCTAssertNil(object["apple"], "no Apple pedometer in this layout")
  }

  /// Every `--json` output writes a file's path as it was given: `activity --json` escaped each
  /// slash (`"\/tmp\/…"`, valid JSON, but not the text a shell script greps for), where `steps`
  /// wrote it plainly.
  func testJSONOutputWritesPathsAsGiven() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let file = folder.appendingPathComponent("walk.csv")
    var text = "t,ax,ay,az\n"
    for index in 0..<1000 {
      let t = Double(index) / 100
      text += String(format: "%.2f,0,0,%.4f\n", t, 9.80665 * (1 + 0.25 * sin(4 * Double.pi * t)))
    }
    try text.write(to: file, atomically: true, encoding: .utf8)
    for command in ["steps", "activity"] {
      let result = try MotionctlRunner.run([command, "--json", file.path])
      XCTAssertEqual(result.status, 0, result.standardError)
      XCTAssertTrue(
        result.standardOutput.contains("\"file\":\"\(file.path)\""),
        "\(command): \(result.standardOutput.prefix(300))")
      XCTAssertEqual(try result.firstJSONObject()["file"] as? String, file.path, command)
    }
  }

  /// The same walk as a SensorLog log that also records Apple's `CMPedometer`: its totals are
  /// set beside ours, in the JSON and in the line of text.
  func testStepsSetsApplesPedometerFromASensorLogLogBesideOurs() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let file = folder.appendingPathComponent("sensorlog.csv")
    var text =
      "loggingTime(txt),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),"
      + "accelerometerAccelerationY(G),accelerometerAccelerationZ(G),pedometerNumberofSteps(N),"
      + "pedometerDistance(m),pedometerFloorAscended(N),pedometerFloorDescended(N)\n"
    for index in 0..<3000 {
      let t = Double(index) / 100
      let phase = 2 * Double.pi * 2 * t
      // Core Motion's acceleration: g, pointing down at rest.
      let vertical = -(1 + 0.25 * sin(phase) + 0.08 * sin(2 * phase + 0.7))
      // Apple's count, cumulative, reported every second (empty cells before the first).
      let pedometer = index < 100 ? ",,," : "\(2 * (index / 100)),\(Double(index / 100) * 1.5),0,0"
      text +=
        String(
          format: "2026-11-29T10:00:00.000+01:00,%.2f,%.4f,%.4f,%.4f,", 1_000 + t, 0.3 * vertical,
          0.02, 0.95 * vertical) + pedometer + "\n"
    }
    try text.write(to: file, atomically: true, encoding: .utf8)

    let result = try MotionctlRunner.run(["steps", "--json", file.path])
    XCTAssertEqual(result.status, 0, result.standardError)
    let object = try result.firstJSONObject()
    XCTAssertEqual(Double(try XCTUnwrap(object["steps"] as? Int)), 60, accuracy: 2)
    let apple = try XCTUnwrap(object["apple"] as? [String: Any])
    XCTAssertEqual(apple["steps"] as? Int, 58)
    XCTAssertEqual(apple["distance_m"] as? Double, 43.5)
    XCTAssertEqual(apple["floors_ascended"] as? Int, 0)

    let plain = try MotionctlRunner.run(["steps", file.path])
    XCTAssertEqual(plain.status, 0, plain.standardError)
    XCTAssertTrue(
      plain.standardOutput.contains("Apple's CMPedometer in the log: 58 steps, 43.5 m"),
      plain.standardOutput)
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
      let object = try result.firstJSONObject()
      XCTAssertEqual(object["floors_ascended"] as? Int, ascended, scenario)
      XCTAssertEqual(object["floors_descended"] as? Int, descended, scenario)
      XCTAssertGreaterThan(object["steps"] as? Int ?? 0, 30, scenario)
    }
  }

  /// One file per sensor (the IPIN layout): `NAME_acc.csv` finds `NAME_pressure.csv` beside it;
  /// `--pressure` names a barometer file; `--pressure` with two recordings is refused.
  func testStepsTakesTheBarometerFromItsOwnFile() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let (accelerometer, barometer) = try simulatedStairsTables(in: folder)
    let accelerometerFile = folder.appendingPathComponent("T03_R02_acc.csv")
    let barometerFile = folder.appendingPathComponent("T03_R02_pressure.csv")
    try accelerometer.write(to: accelerometerFile, atomically: true, encoding: .utf8)
    try barometer.write(to: barometerFile, atomically: true, encoding: .utf8)
    let renamed = folder.appendingPathComponent("accelerometer.csv")
    try accelerometer.write(to: renamed, atomically: true, encoding: .utf8)

    for arguments in [
      [accelerometerFile.path], [renamed.path, "--pressure", barometerFile.path],
    ] {
      let result = try MotionctlRunner.run(["steps", "--json"] + arguments)
      XCTAssertEqual(result.status, 0, result.standardError)
      let object = try result.firstJSONObject()
      XCTAssertEqual(object["floors_ascended"] as? Int, 2, "\(arguments)")
      XCTAssertEqual(object["floors_descended"] as? Int, 2, "\(arguments)")
    }
    let alone = try MotionctlRunner.run(["steps", "--json", renamed.path])
    XCTAssertTrue(alone.standardOutput.contains("\"floors_ascended\":null"), alone.standardOutput)
    let refused = try MotionctlRunner.run(
      ["steps", renamed.path, accelerometerFile.path, "--pressure", barometerFile.path])
    XCTAssertNotEqual(refused.status, 0)
    XCTAssertTrue(refused.standardError.contains("--pressure"), refused.standardError)
  }

  /// Pressures outside 1–200 kPa are refused by the floor counter. Before, `steps` said nothing
  /// of them: a barometer file in Pa under an `pressure_hpa` heading gave "floors 0 up, 0 down"
  /// for a climb of two floors. Now every refused reading is counted on stderr, and when none is
  /// left the floors are null, as without a barometer; a few broken readings among good ones cost
  /// nothing but their line.
  func testStepsSaysWhichPressuresItRefused() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let (accelerometer, barometer) = try simulatedStairsTables(in: folder)
    let accelerometerFile = folder.appendingPathComponent("accelerometer.csv")
    try accelerometer.write(to: accelerometerFile, atomically: true, encoding: .utf8)
    var rows = barometer.split(separator: "\n").map(String.init)
    let header = rows.removeFirst()
    let readings = try rows.map { row -> (time: Substring, hectopascals: Double) in
      let cells = row.split(separator: ",")
      return (cells[0], try XCTUnwrap(Double(cells[1]), row))
    }

    let inPascals = folder.appendingPathComponent("pascals.csv")
    try ([header] + readings.map { "\($0.time),\($0.hectopascals * 100)" })
      .joined(separator: "\n").write(to: inPascals, atomically: true, encoding: .utf8)
    let wrongUnit = try MotionctlRunner.run(
      ["steps", "--json", accelerometerFile.path, "--pressure", inPascals.path])
    XCTAssertEqual(wrongUnit.status, 0, wrongUnit.standardError)
    XCTAssertTrue(
      wrongUnit.standardOutput.contains("\"floors_ascended\":null"), wrongUnit.standardOutput)
    XCTAssertTrue(
      wrongUnit.standardError.contains(
        "all \(readings.count) pressure readings of \(inPascals.path) are outside"),
      wrongUnit.standardError)

    let broken = folder.appendingPathComponent("broken.csv")
    let brokenRows = readings.enumerated().map { index, reading in
      "\(reading.time),\(index % 500 == 250 ? -1 : reading.hectopascals)"
    }
    let brokenCount = readings.indices.filter { $0 % 500 == 250 }.count
    XCTAssertGreaterThan(brokenCount, 0)
    try ([header] + brokenRows).joined(separator: "\n")
      .write(to: broken, atomically: true, encoding: .utf8)
    let someBroken = try MotionctlRunner.run(
      ["steps", "--json", accelerometerFile.path, "--pressure", broken.path])
    XCTAssertEqual(someBroken.status, 0, someBroken.standardError)
    let object = try someBroken.firstJSONObject()
    XCTAssertEqual(object["floors_ascended"] as? Int, 2)
    XCTAssertEqual(object["floors_descended"] as? Int, 2)
    XCTAssertTrue(
      someBroken.standardError.contains(
        "left out \(brokenCount) of \(readings.count) pressure readings of \(broken.path)"),
      someBroken.standardError)
  }

  /// A `NAME_pressure.csv` found beside `NAME_acc.csv` without a reading (a header alone) is said
  /// on stderr and the floors are null, the steps counted; before, it failed the recording, which
  /// `steps` had not been asked to read with a barometer. Named with `--pressure`, the same file
  /// is still an error.
  func testAnEmptyBarometerFileBesideTheRecordingLeavesTheFloorsNull() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let (accelerometer, _) = try simulatedStairsTables(in: folder)
    let accelerometerFile = folder.appendingPathComponent("X_acc.csv")
    let barometerFile = folder.appendingPathComponent("X_pressure.csv")
    try accelerometer.write(to: accelerometerFile, atomically: true, encoding: .utf8)
    try "t,pressure_hpa\n".write(to: barometerFile, atomically: true, encoding: .utf8)

    let result = try MotionctlRunner.run(["steps", "--json", accelerometerFile.path])
    XCTAssertEqual(result.status, 0, result.standardError)
    XCTAssertTrue(result.standardOutput.contains("\"floors_ascended\":null"), result.standardOutput)
    let object = try result.firstJSONObject()
    XCTAssertGreaterThan(object["steps"] as? Int ?? 0, 30)
    XCTAssertTrue(
      result.standardError.contains("\(barometerFile.path): no pressure readings"),
      result.standardError)

    let named = try MotionctlRunner.run(
      ["steps", "--json", accelerometerFile.path, "--pressure", barometerFile.path])
    XCTAssertNotEqual(named.status, 0)
    XCTAssertTrue(named.standardError.contains("no pressure readings"), named.standardError)
  }

  /// The simulated `stairs` scenario (two floors up, two down) split into the IPIN layout's two
  /// plain tables: `t,ax,ay,az` (m/s²) and `t,pressure_hpa`, one line per sample.
  private func simulatedStairsTables(
    in folder: URL
  ) throws -> (
    accelerometer: String, barometer: String
  ) {
    let simulated = folder.appendingPathComponent("stairs.csv")
    let run = try MotionctlRunner.run(["simulate", "stairs", simulated.path])
    XCTAssertEqual(run.status, 0, run.standardError)
    let lines = try String(contentsOf: simulated, encoding: .utf8).split(separator: "\n")
      .filter { !$0.hasPrefix("#") }
    let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    let column = { (name: String) in try XCTUnwrap(header.firstIndex(of: name), name) }
    let (t, ax, ay, az, p) = try (
      column("t"), column("acc_x"), column("acc_y"), column("acc_z"), column("pressure")
    )
    var accelerometer = "t,ax,ay,az\n"
    var barometer = "t,pressure_hpa\n"
    for line in lines.dropFirst() {
      let cells = line.split(separator: ",", omittingEmptySubsequences: false)
      accelerometer += "\(cells[t]),\(cells[ax]),\(cells[ay]),\(cells[az])\n"
      if let kilopascals = Double(cells[p]) { barometer += "\(cells[t]),\(kilopascals * 10)\n" }
    }
    return (accelerometer, barometer)
  }

  /// Android loggers now and then write a sensor's row a few milliseconds before the one above
  /// it. In a barometer file of its own such rows are skipped and counted, not fatal: before,
  /// one of them lost the whole recording's output, steps included. In the recording itself
  /// they fail it unless `--skip-invalid`; with several recordings the others are still
  /// counted, and the status says one failed.
  func testStepsSkipsBackwardsBarometerRowsAndCountsTheOtherRecordings() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let (accelerometer, barometer) = try simulatedStairsTables(in: folder)
    // Every 50th barometer row 15 ms earlier than the row above it.
    var rows = barometer.split(separator: "\n").map(String.init)
    var shifted = 0
    for index in Swift.stride(from: 50, to: rows.count, by: 50) {
      let cells = rows[index].split(separator: ",")
      let previous = try XCTUnwrap(Double(rows[index - 1].split(separator: ",")[0]))
      rows[index] = "\(previous - 0.015),\(cells[1])"
      shifted += 1
    }
    let accelerometerFile = folder.appendingPathComponent("T01_R01_acc.csv")
    try accelerometer.write(to: accelerometerFile, atomically: true, encoding: .utf8)
    try (rows.joined(separator: "\n") + "\n").write(
      to: folder.appendingPathComponent("T01_R01_pressure.csv"), atomically: true,
      encoding: .utf8)
    let result = try MotionctlRunner.run(["steps", "--json", accelerometerFile.path])
    XCTAssertEqual(result.status, 0, result.standardError)
    let object = try result.firstJSONObject()
    XCTAssertEqual(object["floors_ascended"] as? Int, 2)
    XCTAssertEqual(object["floors_descended"] as? Int, 2)
    XCTAssertTrue(
      result.standardError.contains("skipped \(shifted) invalid rows of"), result.standardError)

    // A recording with a backwards row of its own, before a good one.
    var accelerometerRows = accelerometer.split(separator: "\n").map(String.init)
    accelerometerRows.swapAt(500, 501)
    let broken = folder.appendingPathComponent("broken.csv")
    try (accelerometerRows.joined(separator: "\n") + "\n").write(
      to: broken, atomically: true, encoding: .utf8)
    let both = try MotionctlRunner.run(["steps", "--json", broken.path, accelerometerFile.path])
    XCTAssertNotEqual(both.status, 0)
    XCTAssertTrue(both.standardError.contains("broken.csv"), both.standardError)
    XCTAssertTrue(
      both.standardError.contains("1 of 2 recordings could not be counted"), both.standardError)
    let printed = both.standardOutput.split(separator: "\n")
    XCTAssertEqual(printed.count, 1, both.standardOutput)
    XCTAssertTrue(printed.first?.contains("T01_R01_acc.csv") ?? false, both.standardOutput)
    let skipping = try MotionctlRunner.run(
      ["steps", "--json", "--skip-invalid", broken.path, accelerometerFile.path])
    XCTAssertEqual(skipping.status, 0, skipping.standardError)
    XCTAssertEqual(skipping.standardOutput.split(separator: "\n").count, 2)
    XCTAssertTrue(
      skipping.standardError.contains("invalid rows of \(broken.path)"), skipping.standardError)
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
    let object = try result.firstJSONObject()
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
