// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

/// Runs the built `motionctl` binary and captures what it prints.
struct MotionctlRunner {
  struct Result {
    var status: Int32
    var standardOutput: String
    var standardError: String

    /// The first line of standard output as a JSON object (a `--json` command prints one object
    /// per line, one per file). Fails the test, at the caller's line, when there is no line or it
    /// is not an object.
    func firstJSONObject(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any]
    {
      let first = try XCTUnwrap(
        standardOutput.split(separator: "\n").first, "nothing on standard output", file: file,
        line: line)
      return try XCTUnwrap(
        (try? JSONSerialization.jsonObject(with: Data(first.utf8))) as? [String: Any],
        "not a JSON object: \(first)", file: file, line: line)
    }
  }

  static var executable: URL { ChildProcess.productsDirectory.appendingPathComponent("motionctl") }

  /// Runs `motionctl arguments…` with `environment` added to this process's environment (without
  /// `COREMOTION_SOURCE`, so that the caller's shell cannot change the result).
  static func run(
    _ arguments: [String], environment: [String: String] = [:], timeout: Double = 300,
    file: StaticString = #filePath, line: UInt = #line
  ) throws -> Result {
    var changes: [String: String?] = ["COREMOTION_SOURCE": nil]
    for (name, value) in environment { changes[name] = value }
    let run = try ChildProcess.run(
      executable, arguments: arguments, environment: changes, timeout: timeout)
    if run.timedOut {
      XCTFail(
        "motionctl \(arguments.joined(separator: " ")) did not finish within \(timeout) s",
        file: file, line: line)
    }
    return Result(
      status: run.status, standardOutput: run.standardOutput, standardError: run.standardError)
  }
}

/// A fresh temporary folder, removed by the test's teardown.
func makeTemporaryDirectory(for test: XCTestCase) throws -> URL {
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("motionctl-tests-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
  return url
}
