// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

/// Runs the dashboard's browser tests (Tests/Browser/test_dashboard.py: headless Chromium driven by
/// Selenium against `motionctl dashboard`). Skips on a developer machine without Chromium or
/// Selenium; with CI=true their absence is a failure (`.ci/install-browser` installs them).
final class DashboardBrowserTests: XCTestCase {
  func testDashboardInHeadlessChromium() throws {
    let missing = Self.missingTools()
    if !missing.isEmpty {
      let message = "browser tests need \(missing.joined(separator: ", ")); run .ci/install-browser"
      if SharedData.isCI { XCTFail(message) }
      throw XCTSkip(message)
    }
    // Selenium's own waits are short; ten minutes is a hang, and stopping the process group ends
    // chromedriver and Chromium too.
    try Self.runPythonCheck(
      "Tests/Browser/test_dashboard.py", what: "the browser tests", timeout: 600,
      result: " passed, 0 failed")
  }

  /// Runs a Python check of this repository against the built `motionctl` (`$MOTIONCTL`),
  /// prints its output, and fails unless it finishes within `timeout` s, exits 0 and prints
  /// `result`.
  static func runPythonCheck(
    _ script: String, what: String, timeout: Double, result: String,
    file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let motionctl = try XCTUnwrap(
      motionctlPath(), "the motionctl binary was not built next to the tests", file: file,
      line: line)
    let run = try ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      arguments: ["python3", SharedData.repositoryRoot.appendingPathComponent(script).path],
      environment: ["MOTIONCTL": motionctl], timeout: timeout)
    let text = run.standardOutput + run.standardError
    print(text)
    XCTAssertFalse(
      run.timedOut, "\(what) did not finish within \(Int(timeout)) s:\n\(text)", file: file,
      line: line)
    XCTAssertEqual(run.status, 0, "\(what) failed:\n\(text)", file: file, line: line)
    XCTAssertTrue(
      text.contains(result), "\(what) did not report a result:\n\(text)", file: file, line: line)
  }

  /// The tools the browser tests need that are not installed.
  static func missingTools() -> [String] {
    var missing: [String] = []
    for tool in ["chromium", "chromedriver", "python3"] where which(tool) == nil {
      missing.append(tool)
    }
    if which("python3") != nil, run(["python3", "-c", "import selenium"]) != 0 {
      missing.append("selenium (pip)")
    }
    return missing
  }

  static func motionctlPath() -> String? {
    let beside = Bundle.main.bundleURL.appendingPathComponent("motionctl").path
    let candidates = [
      beside,
      Bundle(for: DashboardBrowserTests.self).bundleURL.deletingLastPathComponent()
        .appendingPathComponent("motionctl").path,
      SharedData.repositoryRoot.appendingPathComponent(".build/debug/motionctl").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  private static func which(_ tool: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(tool)" }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }

  private static func run(_ arguments: [String]) -> Int32 {
    guard
      let run = try? ChildProcess.run(
        URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments, timeout: 60)
    else {
      return -1
    }
    return run.status
  }
}
