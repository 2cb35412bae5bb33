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
    let motionctl = try XCTUnwrap(
      Self.motionctlPath(), "the motionctl binary was not built next to the tests")
    // Selenium's own waits are short; ten minutes is a hang, and stopping the process group ends
    // chromedriver and Chromium too.
    let run = try ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/env"),
      arguments: [
        "python3",
        SharedData.repositoryRoot.appendingPathComponent("Tests/Browser/test_dashboard.py").path,
      ],
      environment: ["MOTIONCTL": motionctl], timeout: 600)
    let text = run.standardOutput + run.standardError
    print(text)
    XCTAssertFalse(run.timedOut, "the browser tests did not finish within 10 min:\n\(text)")
    XCTAssertEqual(run.status, 0, "browser tests failed:\n\(text)")
    XCTAssertTrue(
      text.contains(" passed, 0 failed"), "the browser tests did not report a result:\n\(text)")
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
