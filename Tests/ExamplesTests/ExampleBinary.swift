// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

/// Runs a built example program and collects its output.
enum ExampleBinary {
  /// The folder holding the built products (next to the test bundle).
  static var productsDirectory: URL { ChildProcess.productsDirectory }

  /// Runs `name` with `arguments` and `COREMOTION_SOURCE=source`; returns its exit status, standard
  /// output and standard error. Fails the test if it does not finish within `timeout` seconds.
  static func run(
    _ name: String, source: String, arguments: [String] = [], timeout: Double = 120,
    file: StaticString = #filePath, line: UInt = #line
  ) throws -> (status: Int32, output: String, error: String) {
    let url = productsDirectory.appendingPathComponent(name)
    guard FileManager.default.isExecutableFile(atPath: url.path) else {
      XCTFail("\(name) was not built at \(url.path)", file: file, line: line)
      return (-1, "", "")
    }
    let run = try ChildProcess.run(
      url, arguments: arguments, environment: ["COREMOTION_SOURCE": source], timeout: timeout)
    if run.timedOut {
      XCTFail("\(name) did not finish within \(timeout) s", file: file, line: line)
    }
    return (run.status, run.standardOutput, run.standardError)
  }
}
