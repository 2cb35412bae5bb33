// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

/// Findings of an exploratory hostile-input pass over the command line (2026-11-27), each kept
/// fixed: times too large to resample, a failed write of the output, options that would be
/// ignored, a byte-order mark, a barometer file without pressure, JSON cut short by an error.
final class MotionctlHardeningTests: XCTestCase {
  /// A walk-like |a| (2 steps/s, specific force in m/s²) in the shared steps layout, 100 Hz.
  private func walk(rows: Int = 300) -> String {
    var text = "t,ax,ay,az\n"
    for i in 0..<rows {
      text += "\(Double(i) / 100),0,0,\(9.81 + 2 * sin(2 * Double.pi * 2 * Double(i) / 100))\n"
    }
    return text
  }

  /// Times from about 1e14 s on (microseconds read as seconds) no longer change by one grid
  /// period: the resampling loops used to spin for ever. Now they finish, at once; `steps`
  /// says that samples 0.01 s apart in microseconds are too sparse in seconds, rather than
  /// counting 0 steps.
  func testHugeTimesFinish() throws {
    let folder = try makeTemporaryDirectory(for: self)
    var text = "t,ax,ay,az\n"
    for i in 0..<300 {
      text += "\(1.7327e15 + Double(i) * 10_000),0,0,\(9.81 + 2 * sin(Double(i) * 0.125))\n"
    }
    text += "1e16,0,0,9.8\n"
    let file = folder.appendingPathComponent("epoch_us.csv")
    try text.write(to: file, atomically: true, encoding: .utf8)
    let steps = try MotionctlRunner.run(["steps", file.path], timeout: 60)
    XCTAssertNotEqual(steps.status, 0)
    XCTAssertTrue(
      steps.standardError.contains("too sparse to count steps"), steps.standardError)
    let activity = try MotionctlRunner.run(["activity", file.path], timeout: 60)
    XCTAssertEqual(activity.status, 0, activity.standardError)
  }

  /// `print` drops write errors; a full disk must still end with a non-zero status.
  func testAFailedWriteOfTheOutputIsAnError() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let file = folder.appendingPathComponent("walk.csv")
    try walk().write(to: file, atomically: true, encoding: .utf8)
    let shell = try ChildProcess.run(
      URL(fileURLWithPath: "/bin/sh"),
      arguments: [
        "-c", "\"$0\" steps --json \"$1\" > /dev/full", MotionctlRunner.executable.path, file.path,
      ],
      environment: [:], timeout: 60)
    XCTAssertNotEqual(shell.status, 0)
    XCTAssertTrue(shell.standardError.contains("cannot write the output"), shell.standardError)
  }

  func testOptionsThatWouldBeIgnoredAreRefused() throws {
    let cases: [([String], String)] = [
      (["evaluate", "x.csv", "--write-model", "m.swift"], "--write-model"),
      (["evaluate", "x.csv", "--rate", "50"], "--rate"),
      (["evaluate", "steps", "x", "--mode", "offline9d"], "--mode"),
      (["evaluate", "steps", "x", "--decimate", "2"], "--decimate"),
      (["evaluate", "x.csv", "--heading-uncertainty", "--mode", "realtime6d"], "--mode"),
      (["replay", "x.csv", "--offline-in-memory"], "--offline"),
      // --location only places true north; with another frame it did nothing, unread.
      (["replay", "x.csv", "--location", "48,2"], "--location"),
      (["replay", "x.csv", "--frame", "magnetic-north", "--location", "x"], "--location"),
      (["replay", "x.csv", "--format", "broad", "--columns", "t=time"], "--columns"),
      (["steps", "x.csv", "--format", "euroc", "--columns", "t=time"], "--columns"),
    ]
    for (arguments, mentioned) in cases {
      let result = try MotionctlRunner.run(arguments)
      XCTAssertNotEqual(result.status, 0, arguments.joined(separator: " "))
      XCTAssertTrue(
        result.standardError.contains(mentioned),
        "\(arguments.joined(separator: " ")): \(result.standardError)")
    }
  }

  /// The activity model is written as every output is: a FIFO at its path is refused before the
  /// evaluation runs (a plain write blocked for ever on a FIFO without a reader, after minutes of
  /// evaluation), and so is a symbolic link.
  func testTheActivityModelIsNotWrittenIntoAFIFO() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let fifo = folder.appendingPathComponent("model.swift").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let result = try MotionctlRunner.run([
      "evaluate", "activity", folder.appendingPathComponent("none").path, "--write-model", fifo,
    ])
    XCTAssertNotEqual(result.status, 0)
    XCTAssertTrue(
      result.standardError.contains("cannot write \(fifo)")
        && result.standardError.contains("pipe"), result.standardError)
  }

  /// Spreadsheet exports start with a UTF-8 byte-order mark; the shared layouts are still known.
  func testAByteOrderMarkBeforeTheHeader() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let file = folder.appendingPathComponent("bom.csv")
    try ("\u{FEFF}" + walk()).write(to: file, atomically: true, encoding: .utf8)
    let result = try MotionctlRunner.run(["steps", "--json", file.path])
    XCTAssertEqual(result.status, 0, result.standardError)
  }

  /// A barometer file that gives no pressure is an error, not floors left `null` without a word.
  func testABarometerFileWithoutPressure() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let file = folder.appendingPathComponent("walk.csv")
    try walk().write(to: file, atomically: true, encoding: .utf8)
    let result = try MotionctlRunner.run(["steps", file.path, "--pressure", file.path])
    XCTAssertNotEqual(result.status, 0)
    XCTAssertTrue(result.standardError.contains("no pressure readings"), result.standardError)
  }

  /// An error part way through `altitude --json` still leaves valid JSON, with the error in it.
  func testAltitudeJSONCutShortStaysJSON() throws {
    let folder = try makeTemporaryDirectory(for: self)
    let file = folder.appendingPathComponent("baro.csv")
    try "t,pressure_hpa\n0,1000\n1,1000.1\n2,5\n3,1000\n".write(
      to: file, atomically: true, encoding: .utf8)
    let result = try MotionctlRunner.run(["altitude", "--json", file.path])
    XCTAssertNotEqual(result.status, 0)
    let line = try XCTUnwrap(result.standardOutput.split(separator: "\n").first)
    let object = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
    XCTAssertEqual((object["samples"] as? [Any])?.count, 2)
    XCTAssertNotNil(object["error"])
  }
}
