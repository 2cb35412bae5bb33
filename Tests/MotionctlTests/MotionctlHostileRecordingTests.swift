// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

/// Hostile recordings against `altitude`, `steps`, `activity`, `replay`, `monitor` and `--out`
/// (attack A, findings 3, 7, 9, 10, 11, 13 and 15): a clear error with a non-zero status or a
/// counted skip, never a silent loss.
final class MotionctlHostileRecordingTests: XCTestCase {
  private let header = "# OpenCoreMotion CSV\nt,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z\n"

  private func write(_ text: String, _ name: String, in folder: URL) throws -> String {
    let url = folder.appendingPathComponent(name)
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url.path
  }

  private func lines(_ text: String) -> [Substring] { text.split(separator: "\n") }

  // MARK: - altitude (findings 3, 7, 10)

  /// Zero, negative and absurd pressures are an error, or with --skip-invalid skipped and
  /// counted; they never reach the filter, so the normal reading ten minutes later is at 0 m
  /// (it was 0 kPa at +44 330 m). The output is written as it is computed: the lines before a
  /// bad row are out even though the run fails there.
  func testAltitudeRefusesImpossiblePressuresAndStreamsItsOutput() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let file = try write(
      "t,pressure_hpa\n0,1013.25\n1,0\n2,-5\n3,1e308\n4,1013.25\n5,1013.25\n600,1013.25\n",
      "pressure.csv", in: folder)

    let failed = try MotionctlRunner.run(["altitude", file])
    XCTAssertNotEqual(failed.status, 0)
    XCTAssertTrue(
      failed.standardError.contains("outside the plausible 1–200 kPa"), failed.standardError)
    XCTAssertTrue(failed.standardError.contains("--skip-invalid"), failed.standardError)
    XCTAssertEqual(lines(failed.standardOutput), ["0.000000 101.325000 0.0000"])

    let failedJSON = try MotionctlRunner.run(["altitude", "--json", file])
    XCTAssertNotEqual(failedJSON.status, 0)
    XCTAssertTrue(
      failedJSON.standardOutput.hasPrefix("{\"file\":\"\(file)\",\"samples\":[{"),
      failedJSON.standardOutput)

    let skipped = try MotionctlRunner.run(["altitude", "--skip-invalid", file])
    XCTAssertEqual(skipped.status, 0, skipped.standardError)
    XCTAssertTrue(
      skipped.standardError.contains(
        "skipped 3 rows of \(file) with a pressure outside the plausible 1–200 kPa"),
      skipped.standardError)
    XCTAssertEqual(
      lines(skipped.standardOutput),
      [
        "0.000000 101.325000 0.0000", "4.000000 101.325000 0.0000", "5.000000 101.325000 0.0000",
        "600.000000 101.325000 0.0000",
      ])

    let json = try MotionctlRunner.run(["altitude", "--json", "--skip-invalid", file])
    XCTAssertEqual(json.status, 0, json.standardError)
    let objectLines = lines(json.standardOutput)
    XCTAssertEqual(objectLines.count, 1)
    let object = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(objectLines[0].utf8)) as? [String: Any])
    XCTAssertEqual(object["file"] as? String, file)
    let samples = try XCTUnwrap(object["samples"] as? [[String: Double]])
    XCTAssertEqual(samples.map { $0["t"] }, [0, 4, 5, 600])
    XCTAssertEqual(samples.last?["relative_altitude_m"], 0)
    XCTAssertEqual(samples.last?["pressure_kpa"], 101.325)
  }

  /// A file without a pressure reading, or whose every reading is refused, is an error.
  func testAltitudeWithoutPressureSamplesIsAnError() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let empty = try write("t,pressure_hpa\n", "empty.csv", in: folder)
    let result = try MotionctlRunner.run(["altitude", empty])
    XCTAssertNotEqual(result.status, 0)
    XCTAssertTrue(result.standardError.contains("no pressure samples"), result.standardError)

    let absurd = try write("t,pressure_hpa\n0,0\n1,-3\n", "absurd.csv", in: folder)
    let refused = try MotionctlRunner.run(["altitude", "--json", "--skip-invalid", absurd])
    XCTAssertNotEqual(refused.status, 0)
    XCTAssertTrue(
      refused.standardError.contains("no pressure samples (2 rows were invalid and skipped)"),
      refused.standardError)
    XCTAssertEqual(refused.standardOutput, "")
  }

  // MARK: - steps and activity (findings 10, 11)

  /// A header with no rows, or a recording without an accelerometer, gives no "0 steps" result:
  /// an error naming the file and a non-zero status, for `steps` and for `activity`.
  func testStepsAndActivityRefuseFilesWithoutAccelerometerSamples() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let headerOnly = try write("t,ax,ay,az\n", "hdronly.csv", in: folder)
    let gyroscopeOnly = try write(
      "# OpenCoreMotion CSV\nt,gyr_x,gyr_y,gyr_z\n1,0,0,0\n", "g.csv", in: folder)
    for file in [headerOnly, gyroscopeOnly] {
      for command in [["steps"], ["steps", "--json"], ["activity"], ["activity", "--json"]] {
        let result = try MotionctlRunner.run(command + [file])
        XCTAssertNotEqual(result.status, 0, "\(command) \(file)")
        XCTAssertTrue(
          result.standardError.contains("no accelerometer samples"),
          "\(command) \(file): \(result.standardError)")
        XCTAssertTrue(result.standardError.contains(file), result.standardError)
        XCTAssertEqual(result.standardOutput, "", "\(command) \(file)")
      }
    }
  }

  /// Readable rows the step detector refuses (a value of 1e308, implausibly large but finite,
  /// so no invalid row) are counted on stderr, as `replay` counts what its estimator refuses;
  /// they used to be left out unsaid.
  func testStepsCountsTheSamplesTheDetectorRefuses() throws {
    let folder = try makeTemporaryDirectory(for: self)
    var text = "t,ax,ay,az\n"
    for i in 0..<500 {
      text += "\(Double(i) / 100),\((100..<103).contains(i) ? "1e308" : "0"),0,9.81\n"
    }
    let file = try write(text, "huge.csv", in: folder)
    let result = try MotionctlRunner.run(["steps", file])
    XCTAssertEqual(result.status, 0, result.standardError)
    XCTAssertTrue(
      result.standardError.contains(
        "left out 3 of 500 accelerometer samples of \(file) that the step detector refused"),
      result.standardError)
  }

  /// `activity` counts the rows it leaves out (time going back, NaN, infinity) on stderr, and a
  /// file with none left is an error saying so.
  func testActivityCountsTheRowsItSkips() throws {
    let folder = try makeTemporaryDirectory(for: self)
    var backwards = "t,ax,ay,az\n"
    for i in stride(from: 1000, through: 1, by: -1) { backwards += "\(i),0,0,9.81\n" }
    let backwardsFile = try write(backwards, "backwards.csv", in: folder)
    let result = try MotionctlRunner.run(["activity", backwardsFile])
    XCTAssertEqual(result.status, 0, result.standardError)
    XCTAssertTrue(
      result.standardError.contains("skipped 999 invalid rows of \(backwardsFile)"),
      result.standardError)

    var allNaN = "t,ax,ay,az\n"
    for i in 0..<50 { allNaN += "\(Double(i) / 10),nan,0,9.81\n" }
    let nanFile = try write(allNaN, "nan.csv", in: folder)
    let none = try MotionctlRunner.run(["activity", "--json", nanFile])
    XCTAssertNotEqual(none.status, 0)
    XCTAssertTrue(
      none.standardError.contains(
        "no accelerometer samples (all 50 rows were invalid and skipped)"),
      none.standardError)
  }

  /// Given several files, `activity` and `altitude` report a bad one on stderr, go on with the
  /// others and end with a non-zero status, as `steps` does; before, the first bad file ended
  /// the run and the files after it were never read.
  func testActivityAndAltitudeGoOnAfterABadFile() throws {
    let folder = try makeTemporaryDirectory(for: self)
    var still = "t,ax,ay,az\n"
    for i in 0..<300 { still += "\(Double(i) / 50),0,0,9.81\n" }
    let missing = folder.appendingPathComponent("missing.csv").path
    let activity = [
      try write(still, "good.csv", in: folder), missing, try write(still, "good2.csv", in: folder),
    ]
    let altitude = [
      try write("t,pressure_hpa\n0,1013.25\n1,1013.2\n", "p.csv", in: folder), missing,
      try write("t,pressure_hpa\n0,1013.25\n1,x\n", "bad.csv", in: folder),
      try write("t,pressure_hpa\n0,1000\n", "p2.csv", in: folder),
    ]
    for (command, files) in [("activity", activity), ("altitude", altitude)] {
      let result = try MotionctlRunner.run([command, "--json"] + files)
      XCTAssertNotEqual(result.status, 0, command)
      let objects = try lines(result.standardOutput).map {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
      }
      // `altitude` closes the object it had begun for bad.csv with the error in it.
      let read = files.filter { $0 != missing }
      XCTAssertEqual(objects.map { $0["file"] as? String }, read, command)
      XCTAssertEqual(objects.filter { $0["error"] != nil }.count, read.count - 2, command)
      XCTAssertTrue(
        result.standardError.contains("\(missing): no such file or folder"), result.standardError)
      XCTAssertTrue(
        result.standardError.contains("\(files.count - 2) of \(files.count) recordings could not"),
        result.standardError)
    }
  }

  /// `monitor` on a live source that delivers nothing for the whole `--duration` (here a
  /// SensorServer address where nothing listens) is an error that says so; it printed nothing
  /// and ended with status 0.
  func testMonitorOfALiveSourceThatDeliversNothingFails() throws {
    let result = try MotionctlRunner.run([
      "monitor", "raw", "--source", "sensorserver:ws://127.0.0.1:1", "--duration", "1",
    ])
    XCTAssertNotEqual(result.status, 0, result.standardError)
    XCTAssertTrue(
      result.standardError.contains("delivered no sample in 1.0 s"), result.standardError)
  }

  /// `altitude` on the shared accelerometer table (which `steps` and `activity` read) says the
  /// barometer is missing; it said it could not tell the recording format.
  func testAltitudeOnAnAccelerometerTableSaysThereIsNoPressure() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let table = try write("t,ax,ay,az\n0,0,0,9.81\n0.02,0,0,9.81\n", "walk.csv", in: folder)
    let result = try MotionctlRunner.run(["altitude", table])
    XCTAssertNotEqual(result.status, 0)
    XCTAssertTrue(result.standardError.contains("no pressure column"), result.standardError)
    XCTAssertFalse(result.standardError.contains("cannot tell"), result.standardError)
  }

  /// Of several files, `steps` says a bad one's error once, with its path once: the errors of
  /// most readers name the file already, and `steps` prefixed it again ("FILE: FILE: …").
  func testStepsNamesABadFileOnce() throws {
    let folder = try makeTemporaryDirectory(for: self)
    var still = "t,ax,ay,az\n"
    for i in 0..<300 { still += "\(Double(i) / 50),0,0,9.81\n" }
    let empty = try write("t,ax,ay,az\n", "empty.csv", in: folder)
    let result = try MotionctlRunner.run(["steps", try write(still, "good.csv", in: folder), empty])
    XCTAssertNotEqual(result.status, 0)
    XCTAssertTrue(
      result.standardError.contains("\(empty): no accelerometer samples"), result.standardError)
    XCTAssertFalse(result.standardError.contains("\(empty): \(empty)"), result.standardError)
  }

  // MARK: - replay and monitor (finding 9)

  /// Samples the estimator refuses (a gyroscope at 150 rad/s, a repeated timestamp) are counted
  /// on stderr; when it refuses all of them the replay, real time or the `monitor` of it, fails.
  func testReplayAndMonitorCountSamplesTheEstimatorRefuses() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let implausible = try write(
      header + (1...5).map { "\($0),0,0,9.81,150,0,0\n" }.joined(), "implausible.csv", in: folder)
    let all = try MotionctlRunner.run(["replay", implausible])
    XCTAssertNotEqual(all.status, 0)
    XCTAssertTrue(
      all.standardError.contains("the estimator refused all 5 samples"), all.standardError)

    let partial = try write(
      header
        + "0,0,0,9.81,0,0,0\n0.01,0,0,9.81,150,0,0\n0.02,0,0,9.81,0,0,0\n0.02,0,0,9.81,0,0,0\n"
        + "0.03,0,0,9.81,0,0,0\n",
      "partial_drop.csv", in: folder)
    let some = try MotionctlRunner.run(["replay", partial])
    XCTAssertEqual(some.status, 0, some.standardError)
    XCTAssertEqual(lines(some.standardOutput).count, 1 + 3, some.standardOutput)
    XCTAssertTrue(
      some.standardError.contains(
        "left out 2 of 5 samples of \(partial) that the estimator refused"),
      some.standardError)

    let monitored = try MotionctlRunner.run([
      "monitor", "device-motion", "--source", "replay:\(implausible)?speed=max",
    ])
    XCTAssertNotEqual(monitored.status, 0)
    XCTAssertTrue(
      monitored.standardError.contains("ended without a device-motion update"),
      monitored.standardError)
    let monitoredPartial = try MotionctlRunner.run([
      "monitor", "device-motion", "--source", "replay:\(partial)?speed=max", "--rate", "1000",
    ])
    XCTAssertEqual(monitoredPartial.status, 0, monitoredPartial.standardError)
    XCTAssertTrue(monitoredPartial.standardOutput.contains("attitude"))
  }

  /// A recording with a header and no rows ends every kind of `monitor` with an error, not an
  /// empty success: raw values, a recogniser and the pedometer's history.
  func testMonitorOfASourceThatEndsWithoutASampleFails() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let empty = try write(header, "header_only.csv", in: folder)
    for target in ["raw", "shake", "pedometer"] {
      let result = try MotionctlRunner.run([
        "monitor", target, "--source", "replay:\(empty)?speed=max",
      ])
      XCTAssertNotEqual(result.status, 0, target)
      XCTAssertTrue(
        result.standardError.contains("ended without delivering a sample"),
        "\(target): \(result.standardError)")
      XCTAssertEqual(result.standardOutput, "", target)
    }
  }

  // MARK: - --out (finding 13)

  /// `--out` naming the input (itself, through a symbolic link or a hard link) is refused and the
  /// recording is kept; a symbolic link as `--out` is refused (never replaced by a plain file,
  /// its target untouched); `record` refuses to write over the recording it replays.
  func testOutRefusesTheInputAndSymbolicLinks() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let recording = folder.appendingPathComponent("rec.csv").path
    XCTAssertEqual(
      try MotionctlRunner.run(["simulate", "faceUp", recording, "--duration", "1"]).status, 0)
    let original = try Data(contentsOf: URL(fileURLWithPath: recording))

    let link = folder.appendingPathComponent("link.csv").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: recording)
    let hardLink = folder.appendingPathComponent("hard.csv").path
    try FileManager.default.linkItem(atPath: recording, toPath: hardLink)
    let sub = folder.appendingPathComponent("sub")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    for (out, reason) in [
      (recording, "is the input recording"), (sub.path + "/../rec.csv", "is the input recording"),
      (hardLink, "is the input recording"), (link, "symbolic link"),
    ] {
      let result = try MotionctlRunner.run(["replay", recording, "--out", out])
      XCTAssertNotEqual(result.status, 0, out)
      XCTAssertTrue(result.standardError.contains(reason), "\(out): \(result.standardError)")
    }
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: recording)), original)

    let target = folder.appendingPathComponent("target.csv").path
    try "precious\n".write(toFile: target, atomically: true, encoding: .utf8)
    let targetLink = folder.appendingPathComponent("to-target.csv").path
    try FileManager.default.createSymbolicLink(atPath: targetLink, withDestinationPath: target)
    let refused = try MotionctlRunner.run(["replay", recording, "--out", targetLink])
    XCTAssertNotEqual(refused.status, 0)
    XCTAssertTrue(refused.standardError.contains("symbolic link"), refused.standardError)
    XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "precious\n")
    XCTAssertEqual(
      try FileManager.default.destinationOfSymbolicLink(atPath: targetLink), target,
      "the link is still a link")

    let recorded = try MotionctlRunner.run([
      "record", "--source", "replay:\(recording)?speed=max", "--duration", "1", recording,
    ])
    XCTAssertNotEqual(recorded.status, 0)
    XCTAssertTrue(
      recorded.standardError.contains("is the input recording"), recorded.standardError)
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: recording)), original)

    // A new file beside the input is still written.
    let out = folder.appendingPathComponent("out.csv").path
    let written = try MotionctlRunner.run(["replay", recording, "--out", out])
    XCTAssertEqual(written.status, 0, written.standardError)
  }

  // MARK: - replay speed (finding 15)

  /// A speed outside 0.01–1000 is refused at once instead of freezing the source.
  func testReplaySpeedOutsideItsRangeIsRefused() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let recording = folder.appendingPathComponent("rec.csv").path
    XCTAssertEqual(
      try MotionctlRunner.run(["simulate", "faceUp", recording, "--duration", "1"]).status, 0)
    for speed in ["1e-308", "0.001", "1001"] {
      let result = try MotionctlRunner.run([
        "monitor", "device-motion", "--source", "replay:\(recording)?speed=\(speed)",
      ])
      XCTAssertNotEqual(result.status, 0, speed)
      XCTAssertTrue(
        result.standardError.contains("is outside 0.01–1000"), "\(speed): \(result.standardError)")
    }
  }
}
