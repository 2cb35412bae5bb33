// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs a built program for a test: both pipes are read concurrently while it runs (so a full pipe
/// cannot stall it), and it is stopped at a deadline (so a hung program fails the test instead of
/// hanging the suite).
package enum ChildProcess {
  /// What a run produced.
  package struct Result: Sendable {
    /// The exit status (or the signal that ended it).
    package var status: Int32
    package var standardOutput: String
    package var standardError: String
    /// Whether the deadline passed and the program was stopped.
    package var timedOut: Bool
  }

  /// The folder holding the built products (`.build/debug`), found from the test bundle.
  package static var productsDirectory: URL {
    #if os(macOS)
      for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent()
      }
      return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        .appendingPathComponent(".build/debug")
    #else
      return Bundle.main.bundleURL
    #endif
  }

  /// Runs `executable` with `arguments`; `environment` is applied over this process's environment
  /// (a `nil` value removes the variable). After `timeout` seconds the program is sent SIGTERM,
  /// and SIGKILL two seconds later.
  package static func run(
    _ executable: URL, arguments: [String] = [], environment: [String: String?] = [:],
    timeout: Double = 120
  ) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var merged = ProcessInfo.processInfo.environment
    for (name, value) in environment { merged[name] = value }
    process.environment = merged
    let outputPipe = Pipe()
    let errorPipe = Pipe()
    process.standardOutput = outputPipe
    process.standardError = errorPipe
    try process.run()

    let output = CollectedData()
    let error = CollectedData()
    let readers = DispatchGroup()
    for (pipe, sink) in [(outputPipe, output), (errorPipe, error)] {
      let handle = pipe.fileHandleForReading
      readers.enter()
      DispatchQueue.global().async {
        sink.set(handle.readDataToEndOfFile())
        readers.leave()
      }
    }
    let deadline = Date(timeIntervalSinceNow: timeout)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    let timedOut = process.isRunning
    if timedOut {
      process.terminate()
      let killDeadline = Date(timeIntervalSinceNow: 2)
      while process.isRunning, Date() < killDeadline { usleep(10_000) }
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    process.waitUntilExit()
    // The pipes close when the program (and any child holding them) exits; bounded regardless.
    _ = readers.wait(timeout: .now() + 10)
    return Result(
      status: process.terminationStatus,
      standardOutput: String(decoding: output.get(), as: UTF8.self),
      standardError: String(decoding: error.get(), as: UTF8.self), timedOut: timedOut)
  }
}

/// One pipe's bytes, handed from its reader thread to the caller.
///
/// `@unchecked Sendable`: `data` is only touched with `lock` held.
private final class CollectedData: @unchecked Sendable {
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
