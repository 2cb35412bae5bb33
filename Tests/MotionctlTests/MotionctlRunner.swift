// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

/// Runs the built `motionctl` binary and captures what it prints.
struct MotionctlRunner {
  struct Result {
    var status: Int32
    var standardOutput: String
    var standardError: String
  }

  /// The folder holding the built products (`.build/debug`): the test bundle's own folder.
  static var productsDirectory: URL {
    #if os(macOS)
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      return bundle.bundleURL.deletingLastPathComponent()
    }
    fatalError("no .xctest bundle found")
    #else
    return Bundle.main.bundleURL
    #endif
  }

  static var executable: URL { productsDirectory.appendingPathComponent("motionctl") }

  /// Runs `motionctl arguments…` with `environment` added to this process's environment.
  static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var merged = ProcessInfo.processInfo.environment
    merged.removeValue(forKey: "COREMOTION_SOURCE")
    merged.merge(environment) { $1 }
    process.environment = merged
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // Read before waiting so a large output cannot fill the pipe and stall the child.
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus,
      standardOutput: String(decoding: outData, as: UTF8.self),
      standardError: String(decoding: errData, as: UTF8.self))
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
