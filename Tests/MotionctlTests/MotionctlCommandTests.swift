// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// End-to-end tests of `motionctl`: the real binary, its output and its exit status.
final class MotionctlCommandTests: XCTestCase {
  static let replayColumns =
    "timestamp,quat_w,quat_x,quat_y,quat_z,roll,pitch,yaw,gravity_x,gravity_y,gravity_z,"
    + "user_accel_x,user_accel_y,user_accel_z,rotation_rate_x,rotation_rate_y,rotation_rate_z,heading,heading_accuracy"

  func testEveryCommandHasHelp() throws {
    for command in ["", "demo", "replay", "record", "simulate", "sensors", "evaluate", "monitor"] {
      let arguments = command.isEmpty ? ["--help"] : [command, "--help"]
      let result = try MotionctlRunner.run(arguments)
      XCTAssertEqual(result.status, 0, "motionctl \(command) --help: \(result.standardError)")
      XCTAssertTrue(result.standardOutput.contains("USAGE"), "motionctl \(command) --help")
    }
  }

  /// The help lists every kind of source COREMOTION_SOURCE takes; `auto` was missing, so nothing
  /// said how to ask for the hardware-or-nothing choice explicitly.
  func testHelpListsEverySourceKind() throws {
    let result = try MotionctlRunner.run(["--help"])
    XCTAssertEqual(result.status, 0, result.standardError)
    let words = result.standardOutput.split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard let start = words.firstIndex(of: "takes"), let end = words.firstIndex(of: "chosen") else {
      return XCTFail("no list of sources in:\n\(result.standardOutput)")
    }
    let listed = Set(
      words[start..<end].map { word in
        String(word.drop { $0 == "(" }.prefix { $0.isLetter })
      })
    for kind in [
      "auto", "none", "simulator", "replay", "iio", "daemon", "sensorlogger", "sensorserver",
      "phyphox",
    ] {
      XCTAssertTrue(listed.contains(kind), "\(kind) is not in \(words[start..<end])")
    }
  }

  func testSimulateThenReplayGivesOneRowPerSampleInCoreMotionUnits() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let recording = folder.appendingPathComponent("faceUp.csv").path
    let simulate = try MotionctlRunner.run(["simulate", "faceUp", recording, "--duration", "3"])
    XCTAssertEqual(simulate.status, 0, simulate.standardError)

    let replay = try MotionctlRunner.run(["replay", recording])
    XCTAssertEqual(replay.status, 0, replay.standardError)
    let lines = replay.standardOutput.split(separator: "\n")
    XCTAssertEqual(lines.first.map(String.init), Self.replayColumns)
    XCTAssertEqual(lines.count - 1, 300, "3 s at 100 Hz: one row per sample")
    XCTAssertFalse(replay.standardOutput.lowercased().contains("nan"))
    // Face up at rest after the filter settles: gravity (0, 0, −1) g, heading invalid (−1).
    let last = lines.last!.split(separator: ",").map { Double($0)! }
    XCTAssertEqual(last[10], -1, accuracy: 0.01, "gravity_z face up")
    XCTAssertEqual(last[17], -1, "heading is negative in the arbitrary frame")
  }

  /// A shared data set's plain table (MotionSense's layout: g with Apple's sign, a gyroscope)
  /// replays as `COREMOTION_SOURCE=replay:` plays it; `replay` used to say it could not tell the
  /// format, while `steps` and `activity` read the same file.
  func testReplayReadsASharedTableWithAGyroscope() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let path = folder.appendingPathComponent("sub01_sit_01.csv").path
    var text = "t,ax,ay,az,gx,gy,gz,apple_gravity_x,apple_gravity_y,apple_gravity_z\n"
    // Upright in portrait (gravity along −y in g with Apple's sign), still, 50 Hz for 4 s.
    for i in 0..<200 { text += "\(Double(i) / 50),0,-1,0,0,0,0,0,-1,0\n" }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let replay = try MotionctlRunner.run(["replay", path])
    XCTAssertEqual(replay.status, 0, replay.standardError)
    let lines = replay.standardOutput.split(separator: "\n")
    XCTAssertEqual(lines.count - 1, 200, "one row per sample")
    let last = try XCTUnwrap(lines.last).split(separator: ",").compactMap { Double($0) }
    XCTAssertEqual(last.count, Self.replayColumns.split(separator: ",").count)
    XCTAssertEqual(last[9], -1, accuracy: 0.01, "gravity_y upright in portrait")
  }

  func testReplayJSONLinesUsesTheColumnNamesAsKeys() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let recording = folder.appendingPathComponent("portrait.csv").path
    XCTAssertEqual(
      try MotionctlRunner.run(["simulate", "portrait", recording, "--duration", "1"]).status, 0)
    let replay = try MotionctlRunner.run(
      ["replay", recording, "--output", "jsonl", "--frame", "magnetic-north"])
    XCTAssertEqual(replay.status, 0, replay.standardError)
    let lines = replay.standardOutput.split(separator: "\n")
    XCTAssertEqual(lines.count, 100)
    let object = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Double])
    XCTAssertEqual(Set(object.keys), Set(Self.replayColumns.split(separator: ",").map(String.init)))
    // Upright portrait: gravity (0, −1, 0) g; heading valid in a north frame.
    XCTAssertEqual(object["gravity_y"]!, -1, accuracy: 0.02)
    XCTAssertGreaterThanOrEqual(object["heading"]!, 0)
    XCTAssertLessThan(object["heading"]!, 360)
  }

  func testReplayToAFileWritesItOnlyWhenComplete() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let recording = folder.appendingPathComponent("in.csv").path
    XCTAssertEqual(
      try MotionctlRunner.run(["simulate", "flat", recording, "--duration", "1"]).status, 0)
    let output = folder.appendingPathComponent("out.csv").path
    XCTAssertEqual(try MotionctlRunner.run(["replay", recording, "--out", output]).status, 0)
    XCTAssertTrue(FileManager.default.fileExists(atPath: output))

    // A failing replay leaves neither the output nor a partial file behind.
    let broken = folder.appendingPathComponent("broken.csv").path
    try (try String(contentsOfFile: recording, encoding: .utf8) + "1.5,oops\n")
      .write(toFile: broken, atomically: true, encoding: .utf8)
    let failedOutput = folder.appendingPathComponent("failed.csv").path
    XCTAssertNotEqual(try MotionctlRunner.run(["replay", broken, "--out", failedOutput]).status, 0)
    XCTAssertFalse(FileManager.default.fileExists(atPath: failedOutput))
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
      $0.contains("partial")
    }
    XCTAssertEqual(leftovers, [])
  }

  func testBadInputGivesAClearMessageAndNonZeroStatus() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let missing = try MotionctlRunner.run([
      "replay", folder.appendingPathComponent("nope.csv").path,
    ])
    XCTAssertNotEqual(missing.status, 0)
    XCTAssertTrue(missing.standardError.contains("no such file"), missing.standardError)

    let unknownScenario = try MotionctlRunner.run([
      "simulate", "moonwalk", folder.appendingPathComponent("x.csv").path,
    ])
    XCTAssertNotEqual(unknownScenario.status, 0)
    XCTAssertTrue(
      unknownScenario.standardError.contains("tour"),
      "lists the valid names: \(unknownScenario.standardError)")

    let unknownFormat = try MotionctlRunner.run(["replay", "x.csv", "--format", "parquet"])
    XCTAssertNotEqual(unknownFormat.status, 0)
    XCTAssertTrue(unknownFormat.standardError.contains("parquet"), unknownFormat.standardError)

    let badSource = try MotionctlRunner.run(["sensors", "--source", "telepathy"])
    XCTAssertNotEqual(badSource.status, 0)
    XCTAssertTrue(badSource.standardError.contains("telepathy"), badSource.standardError)
  }

  func testMalformedRowsAreReportedWithTheirLineNumber() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let recording = folder.appendingPathComponent("good.csv").path
    XCTAssertEqual(
      try MotionctlRunner.run([
        "simulate", "flat", recording, "--duration", "1", "--no-ground-truth",
      ]).status, 0)
    var lines = try String(contentsOfFile: recording, encoding: .utf8).split(
      separator: "\n", omittingEmptySubsequences: false
    ).map(String.init)
    let headerLines = lines.prefix { $0.hasPrefix("#") }.count + 1
    let target = headerLines + 10  // zero-based index of the 11th data row

    func replay(
      _ edit: (inout [String]) -> Void, name: String, extra: [String] = []
    ) throws -> MotionctlRunner.Result {
      var copy = lines
      edit(&copy)
      let path = folder.appendingPathComponent(name).path
      try copy.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
      return try MotionctlRunner.run(["replay", path] + extra)
    }

    let malformed = try replay({ $0[target] = "0.105,not-a-number" }, name: "malformed.csv")
    XCTAssertNotEqual(malformed.status, 0)
    XCTAssertTrue(malformed.standardError.contains(":\(target + 1):"), malformed.standardError)

    let backwards = try replay(
      { ls in
        var cells = ls[target].split(separator: ",", omittingEmptySubsequences: false).map(
          String.init)
        cells[0] = "0.0"
        ls[target] = cells.joined(separator: ",")
      }, name: "backwards.csv")
    XCTAssertNotEqual(backwards.status, 0)
    XCTAssertTrue(backwards.standardError.contains(":\(target + 1):"), backwards.standardError)

    func withNaN(_ ls: inout [String]) {
      var cells = ls[target].split(separator: ",", omittingEmptySubsequences: false).map(
        String.init)
      cells[1] = "nan"
      ls[target] = cells.joined(separator: ",")
    }
    let nan = try replay(withNaN, name: "nan.csv")
    XCTAssertNotEqual(nan.status, 0)
    XCTAssertTrue(nan.standardError.contains(":\(target + 1):"), nan.standardError)

    let skipped = try replay(withNaN, name: "nan-skip.csv", extra: ["--skip-invalid"])
    XCTAssertEqual(skipped.status, 0, skipped.standardError)
    XCTAssertFalse(skipped.standardOutput.lowercased().contains("nan"))
    lines = []
  }

  func testRecordFromTheSimulatorAndListSensors() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let output = folder.appendingPathComponent("walk.csv").path
    let record = try MotionctlRunner.run([
      "record", "--source", "simulator:walk?speed=max", "--duration", "2", output,
    ])
    XCTAssertEqual(record.status, 0, record.standardError)
    let text = try String(contentsOfFile: output, encoding: .utf8)
    XCTAssertEqual(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count, 1 + 200)

    let sensors = try MotionctlRunner.run(["sensors", "--source", "none"])
    XCTAssertEqual(sensors.status, 0)
    XCTAssertTrue(sensors.standardOutput.contains("sensors:     none"), sensors.standardOutput)
  }

  /// A replayed recording with a header and no rows ends at once: that is an error, as replay,
  /// steps and the others say, not "recorded 0 samples" with status 0; and no file is left.
  func testRecordingASourceThatEndsWithoutASampleFails() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let empty = folder.appendingPathComponent("header-only.csv").path
    try "# OpenCoreMotion CSV\nt,acc_x,acc_y,acc_z\n".write(
      toFile: empty, atomically: true, encoding: .utf8)
    let output = folder.appendingPathComponent("out.csv").path
    let record = try MotionctlRunner.run([
      "record", "--source", "replay:\(empty)?speed=max", "--duration", "1", output,
    ])
    XCTAssertNotEqual(record.status, 0, record.standardError)
    XCTAssertTrue(
      record.standardError.contains("ended without delivering a sample"), record.standardError)
    XCTAssertFalse(FileManager.default.fileExists(atPath: output))
  }

  func testDemoPrintsPlainLinesWhenPiped() throws {
    let demo = try MotionctlRunner.run(["demo", "--duration", "1", "--rate", "10"])
    XCTAssertEqual(demo.status, 0, demo.standardError)
    let lines = demo.standardOutput.split(separator: "\n")
    XCTAssertGreaterThanOrEqual(lines.count, 5)
    XCTAssertFalse(demo.standardOutput.contains("\u{1B}["), "no terminal escapes when piped")
    XCTAssertTrue(lines[0].contains("Gravity (g)"))
  }

  func testEvaluateScoresASimulatedRecordingWithGroundTruth() throws {
    let folder = try makeTemporaryDirectory(for: self)
    // A noiseless scenario written as JSON: the estimator should then be nearly exact.
    let scenario = folder.appendingPathComponent("quiet.json")
    try """
    {"name": "quiet", "noise": "noiseless", "segments": [{"type": "rest", "duration": 1},
      {"type": "moveTo", "attitude": "portrait"}, {"type": "rest", "duration": 2},
      {"type": "moveTo", "attitude": "landscapeLeft"}, {"type": "rest", "duration": 2}]}
    """.write(to: scenario, atomically: true, encoding: .utf8)
    let recording = folder.appendingPathComponent("quiet.csv").path
    let simulate = try MotionctlRunner.run(["simulate", scenario.path, recording])
    XCTAssertEqual(simulate.status, 0, simulate.standardError)
    for mode in ["realtime9d", "realtime6d"] {
      let result = try MotionctlRunner.run(["evaluate", recording, "--mode", mode, "--json"])
      XCTAssertEqual(result.status, 0, result.standardError)
      let object = try result.firstJSONObject()
      XCTAssertEqual(object["mode"] as? String, mode)
      let trials = try XCTUnwrap(object["trials"] as? [[String: Any]])
      XCTAssertEqual(trials.count, 1)
      XCTAssertEqual(trials[0]["name"] as? String, "quiet")
      let mean = try XCTUnwrap(object["mean"] as? [String: Double])
      // Noiseless sensors: what remains is the filter's own lag through the turns (measured
      // about 0.25°); 1° leaves room for tuning without hiding a broken pipeline.
      XCTAssertLessThan(mean["total"]!, 1, "\(mode): \(mean)")
      XCTAssertLessThan(mean["inclination"]!, 1, "\(mode): \(mean)")
    }

    let unknownMode = try MotionctlRunner.run(["evaluate", recording, "--mode", "psychic"])
    XCTAssertNotEqual(unknownMode.status, 0)
  }

  func testMonitorPrintsOrientationChangesAndTaps() throws {
    let orientation = try MotionctlRunner.run([
      "monitor", "orientation", "--source", "simulator:tour?speed=max",
    ])
    XCTAssertEqual(orientation.status, 0, orientation.standardError)
    let reported = orientation.standardOutput.split(separator: "\n").compactMap { line in
      line.split(separator: " ").dropFirst(2).first.map(String.init)
    }
    // The tour visits every orientation; the classifier must report each of them, in this order
    // (turns may pass through other classes on the way, which are reported too).
    let expected = [
      "portrait", "landscapeLeft", "portraitUpsideDown", "landscapeRight", "faceDown",
    ]
    var remaining = expected[...]
    for name in reported where name == remaining.first { remaining.removeFirst() }
    XCTAssertTrue(remaining.isEmpty, "missing \(Array(remaining)) in \(orientation.standardOutput)")

    let tap = try MotionctlRunner.run(["monitor", "tap", "--source", "simulator:tap?speed=max"])
    XCTAssertEqual(tap.status, 0, tap.standardError)
    XCTAssertTrue(tap.standardOutput.contains("tap on the left side"), tap.standardOutput)

    let raw = try MotionctlRunner.run([
      "monitor", "accelerometer", "--source", "simulator:faceUp?speed=max",
    ])
    XCTAssertEqual(raw.status, 0, raw.standardError)
    XCTAssertTrue(raw.standardOutput.contains("accelerometer"), raw.standardOutput)
    XCTAssertTrue(raw.standardOutput.contains(" g"))

    let shake = try MotionctlRunner.run([
      "monitor", "shake", "--source", "simulator:tour?speed=max",
    ])
    XCTAssertEqual(shake.status, 0, shake.standardError)
    XCTAssertTrue(shake.standardOutput.contains("shake began"), shake.standardOutput)
    XCTAssertTrue(
      shake.standardOutput.contains("shake ended"),
      "the end of the tour's shake: \(shake.standardOutput)")
  }

  func testOfflineReplayIsCloserToTheTruthThanRealTime() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let recording = folder.appendingPathComponent("figure8.csv").path
    XCTAssertEqual(try MotionctlRunner.run(["simulate", "figure8", recording]).status, 0)
    let truth = try String(contentsOfFile: recording, encoding: .utf8).split(separator: "\n")
      .filter { !$0.hasPrefix("#") }
    let header = truth[0].split(separator: ",").map(String.init)
    let gravityColumns = ["true_grav_x", "true_grav_y", "true_grav_z"].map {
      header.firstIndex(of: $0)!
    }

    /// RMS angle in degrees between the replayed gravity and the true gravity direction.
    func gravityError(_ arguments: [String]) throws -> Double {
      let replay = try MotionctlRunner.run(["replay", recording] + arguments)
      XCTAssertEqual(replay.status, 0, replay.standardError)
      let rows = replay.standardOutput.split(separator: "\n").dropFirst()
      XCTAssertEqual(rows.count, truth.count - 1, "one row per sample")
      var sum = 0.0
      for (row, line) in zip(rows, truth.dropFirst()) {
        let values = row.split(separator: ",").map { Double($0)! }
        let cells = line.split(separator: ",", omittingEmptySubsequences: false)
        let estimated = SIMD3(values[8], values[9], values[10])
        let reference = SIMD3(gravityColumns.map { Double(cells[$0])! / 9.80665 })
        let cosine =
          (estimated * reference).sum()
          / ((estimated * estimated).sum() * (reference * reference).sum()).squareRoot()
        let angle = acos(min(1, max(-1, cosine))) * 180 / .pi
        sum += angle * angle
      }
      return (sum / Double(rows.count)).squareRoot()
    }
    let realTime = try gravityError([])
    let offline = try gravityError(["--offline"])
    print("gravity direction RMS error on figure8: real time \(realTime)°, offline \(offline)°")
    XCTAssertLessThan(offline, realTime, "offline \(offline)° vs real time \(realTime)°")
    XCTAssertLessThan(offline, 2, "phone-grade noise, figure-8 motion")
  }
}

/// Hostile input to `motionctl`: clean errors, counted skips, files never clobbered.
final class MotionctlHostileInputTests: XCTestCase {
  private let header =
    "# OpenCoreMotion CSV\n# version: 1\n# nominal-sample-rate-hz: 100\nt,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z\n"

  func testHeaderOnlyFileIsAnError() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let path = folder.appendingPathComponent("empty.csv").path
    try header.write(toFile: path, atomically: true, encoding: .utf8)
    let result = try MotionctlRunner.run(["replay", path])
    XCTAssertNotEqual(result.status, 0)
    XCTAssertTrue(result.standardError.contains("no data rows"), result.standardError)
  }

  func testSkippedRowsAreCounted() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let path = folder.appendingPathComponent("absurd.csv").path
    var text = header
    for i in 0..<300 {
      // 1e309 overflows to infinity and "nan" is NaN: both rows are invalid.
      let z = i == 150 ? "1e309" : i == 151 ? "nan" : "9.81"
      text += "\(Double(i) / 100),0,0,\(z),0,0,0\n"
    }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let result = try MotionctlRunner.run(["replay", path, "--skip-invalid"])
    XCTAssertEqual(result.status, 0, result.standardError)
    XCTAssertTrue(result.standardError.contains("skipped 2 invalid rows"), result.standardError)
  }

  func testOutRefusesFoldersAndSpecialFilesAndWrites0600() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let recording = folder.appendingPathComponent("faceUp.csv").path
    XCTAssertEqual(
      try MotionctlRunner.run(["simulate", "faceUp", recording, "--duration", "1"]).status, 0)
    let directory = folder.appendingPathComponent("keep")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try "x".write(to: directory.appendingPathComponent("inside"), atomically: true, encoding: .utf8)
    let refused = try MotionctlRunner.run(["replay", recording, "--out", directory.path])
    XCTAssertNotEqual(refused.status, 0)
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: directory.appendingPathComponent("inside").path))
    let fifo = folder.appendingPathComponent("pipe").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let refusedFifo = try MotionctlRunner.run(["replay", recording, "--out", fifo])
    XCTAssertNotEqual(refusedFifo.status, 0)
    XCTAssertTrue(
      refusedFifo.standardError.contains("not a regular file"), refusedFifo.standardError)

    let out = folder.appendingPathComponent("out.csv").path
    try "old".write(toFile: out, atomically: true, encoding: .utf8)
    let written = try MotionctlRunner.run(["replay", recording, "--out", out])
    XCTAssertEqual(written.status, 0, written.standardError)
    let attributes = try FileManager.default.attributesOfItem(atPath: out)
    XCTAssertEqual((attributes[.posixPermissions] as? Int).map { $0 & 0o777 }, 0o600)
    XCTAssertGreaterThan(try String(contentsOfFile: out, encoding: .utf8).count, 100)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
      $0.contains("partial")
    }
    XCTAssertEqual(leftovers, [])
  }

  /// The offline replay keeps its passes in temporary files: a temporary directory that is
  /// missing, or a disk that fills up (a file size limit), is a clear error with a non-zero
  /// status, never a trap or attitudes made of lost data.
  func testOfflineReplayReportsTemporaryFileFailures() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let recording = folder.appendingPathComponent("figure8.csv").path
    // 300 s: 30,000 samples, 1.4 MB of inputs, more than the 1 MiB block kept in memory.
    XCTAssertEqual(
      try MotionctlRunner.run(["simulate", "figure8", recording, "--duration", "300"]).status, 0)

    let missing = try MotionctlRunner.run(
      ["replay", recording, "--offline"], environment: ["TMPDIR": "/nonexistent/opencoremotion"])
    XCTAssertNotEqual(missing.status, 0)
    XCTAssertTrue(
      missing.standardError.contains("cannot create a temporary file in /nonexistent"),
      missing.standardError)
    XCTAssertTrue(missing.standardError.contains("TMPDIR"), missing.standardError)

    // The first block written back (1 MiB) passes the 32 KiB file size limit. SIGXFSZ is ignored
    // (an ignored signal stays ignored across exec), so the write fails with EFBIG instead.
    let full = try ChildProcess.run(
      URL(fileURLWithPath: "/bin/sh"),
      arguments: [
        "-c", "trap '' XFSZ; ulimit -f 32; exec \"$0\" replay \"$1\" --offline",
        MotionctlRunner.executable.path, recording,
      ],
      environment: ["TMPDIR": folder.path, "COREMOTION_SOURCE": nil])
    XCTAssertFalse(full.timedOut)
    XCTAssertNotEqual(full.status, 0)
    XCTAssertTrue(
      full.standardError.contains("cannot write a temporary file"), full.standardError)
    XCTAssertLessThanOrEqual(
      full.standardOutput.split(separator: "\n").count, 1,
      "at most the header: no update is written from lost data")
  }
}

/// `record` keeps what it recorded when stopped by a signal.
final class MotionctlRecordSignalTests: XCTestCase {
  func testSIGTERMFinishesTheRecording() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let output = folder.appendingPathComponent("stopped.csv").path
    let process = try ChildProcess(
      MotionctlRunner.executable,
      arguments: ["record", "--source", "simulator:tour", "--duration", "600", output],
      standardOutput: .discard)
    // Real-time simulator: wait until samples have been written (the temporary file grows).
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      let partial = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
        $0.contains("partial")
      }
      if let name = partial.first,
        let size = try FileManager.default.attributesOfItem(
          atPath: folder.appendingPathComponent(name).path)[.size]
          as? Int, size > 2000
      {
        break
      }
      Thread.sleep(forTimeInterval: 0.1)
    }
    process.send(SIGTERM)
    XCTAssertTrue(
      process.waitForExit(seconds: 30), "motionctl record did not stop within 30 s of SIGTERM")
    process.waitForOutputEnd(seconds: 5)
    let message = process.standardError
    XCTAssertEqual(process.terminationStatus, 0, message)
    XCTAssertTrue(message.contains("stopped by a signal"), message)
    let text = try String(contentsOfFile: output, encoding: .utf8)
    XCTAssertGreaterThan(
      text.split(separator: "\n").count, 10, "the samples before the signal are kept")
    let mode = try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int
    XCTAssertEqual(mode.map { $0 & 0o777 }, 0o600)
  }
}

/// The terminal bars take any double: 1e20 rad/s from a phone stream used to trap in `Int(...)`.
final class MotionctlReadoutBarTests: XCTestCase {
  func testBarsOfAbsurdValuesAreFullOrEmpty() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let path = folder.appendingPathComponent("absurd.csv").path
    var text =
      "# OpenCoreMotion CSV\n# version: 1\n# nominal-sample-rate-hz: 100\nt,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z\n"
    for i in 0..<200 { text += "\(Double(i) / 100),0,0,9.81,\(i == 100 ? "1e20" : "0"),0,0\n" }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    // demo draws bars for every update; with a 1e20 rad/s sample it must end normally (the
    // estimator may reject the sample; the bars must not trap either way).
    let result = try MotionctlRunner.run(["demo", "--source", "replay:\(path)?speed=max"])
    XCTAssertNotEqual(result.status, 132, "no runtime trap: \(result.standardError)")
    XCTAssertEqual(result.status, 0, result.standardError)
  }
}
