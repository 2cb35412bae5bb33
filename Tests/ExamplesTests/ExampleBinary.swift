// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

/// Runs a built example program and collects its output.
enum ExampleBinary {
  /// The folder holding the built products (next to the test bundle).
  static var productsDirectory: URL {
    if let executable = Bundle.main.executableURL {
      let directory = executable.deletingLastPathComponent()
      if FileManager.default.fileExists(atPath: directory.appendingPathComponent("OrientationExample").path) {
        return directory
      }
    }
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      return bundle.bundleURL.deletingLastPathComponent()
    }
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug")
  }

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
    let process = Process()
    process.executableURL = url
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["COREMOTION_SOURCE"] = source
    process.environment = environment
    let outputPipe = Pipe()
    let errorPipe = Pipe()
    process.standardOutput = outputPipe
    process.standardError = errorPipe
    try process.run()
    // Read while it runs, so that a full pipe cannot block the program.
    let outputData = LockedData()
    let errorData = LockedData()
    let readers = DispatchGroup()
    for (pipe, sink) in [(outputPipe, outputData), (errorPipe, errorData)] {
      readers.enter()
      DispatchQueue.global().async {
        sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
        readers.leave()
      }
    }
    let deadline = Date(timeIntervalSinceNow: timeout)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning {
      process.terminate()
      XCTFail("\(name) did not finish within \(timeout) s", file: file, line: line)
    }
    process.waitUntilExit()
    readers.wait()
    return (
      process.terminationStatus, String(decoding: outputData.get(), as: UTF8.self),
      String(decoding: errorData.get(), as: UTF8.self)
    )
  }
}

private final class LockedData: @unchecked Sendable {
  private let lock = NSLock()
  private var data = Data()
  func set(_ value: Data) {
    lock.lock()
    data = value
    lock.unlock()
  }
  func get() -> Data {
    lock.lock()
    defer { lock.unlock() }
    return data
  }
}
