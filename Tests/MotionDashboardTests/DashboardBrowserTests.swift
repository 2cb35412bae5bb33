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
    let motionctl = try XCTUnwrap(Self.motionctlPath(), "the motionctl binary was not built next to the tests")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", SharedData.repositoryRoot.appendingPathComponent("Tests/Browser/test_dashboard.py").path]
    var environment = ProcessInfo.processInfo.environment
    environment["MOTIONCTL"] = motionctl
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    print(text)
    XCTAssertEqual(process.terminationStatus, 0, "browser tests failed:\n\(text)")
    XCTAssertTrue(text.contains(" passed, 0 failed"), "the browser tests did not report a result:\n\(text)")
  }

  /// The tools the browser tests need that are not installed.
  static func missingTools() -> [String] {
    var missing: [String] = []
    for tool in ["chromium", "chromedriver", "python3"] where which(tool) == nil { missing.append(tool) }
    if which("python3") != nil, run(["python3", "-c", "import selenium"]) != 0 { missing.append("selenium (pip)") }
    return missing
  }

  static func motionctlPath() -> String? {
    let beside = Bundle.main.bundleURL.appendingPathComponent("motionctl").path
    let candidates = [
      beside, Bundle(for: DashboardBrowserTests.self).bundleURL.deletingLastPathComponent().appendingPathComponent("motionctl").path,
      SharedData.repositoryRoot.appendingPathComponent(".build/debug/motionctl").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  private static func which(_ tool: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  private static func run(_ arguments: [String]) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return -1 }
    process.waitUntilExit()
    return process.terminationStatus
  }
}
