// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemonClient
import _MotionTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A `motiond` started for one test in its own temporary XDG directories.
final class DaemonProcess: @unchecked Sendable {
  // Sendable: `process` is replaced only by the test thread (restart); ChildProcess is Sendable.
  let directory: URL
  let source: String
  let extraArguments: [String]
  private(set) var process: ChildProcess!

  var socketPath: String {
    directory.appendingPathComponent("run/opencoremotion/motiond.sock").path
  }
  var stateDirectory: String { directory.appendingPathComponent("state/opencoremotion").path }
  var logPath: String { directory.appendingPathComponent("motiond.log").path }

  /// The folder holding the built products (next to the test bundle).
  static var productsDirectory: URL {
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      return bundle.bundleURL.deletingLastPathComponent()
    }
    if let executable = Bundle.main.executableURL {
      let directory = executable.deletingLastPathComponent()
      if FileManager.default.fileExists(atPath: directory.appendingPathComponent("motiond").path) {
        return directory
      }
    }
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
      ".build/debug")
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  init(source: String, extraArguments: [String] = [], directory: URL? = nil) throws {
    // A short path: a Unix socket path must fit in 107 bytes.
    let fresh = URL(
      fileURLWithPath: "/tmp/motiond-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    self.directory = directory ?? fresh
    try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
    self.source = source
    self.extraArguments = extraArguments
    try launch()
  }

  private func launch() throws {
    let binary = Self.productsDirectory.appendingPathComponent("motiond")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
      throw Failure(description: "motiond was not built at \(binary.path)")
    }
    guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
      throw Failure(description: "cannot create the daemon's log file \(logPath)")
    }
    let process = try ChildProcess(
      binary,
      arguments: [
        "--source", source, "--socket", socketPath, "--state-directory", stateDirectory,
        "--log-level", "debug",
      ]
        + extraArguments,
      environment: [
        "XDG_RUNTIME_DIR": directory.appendingPathComponent("run").path,
        "XDG_STATE_HOME": directory.appendingPathComponent("state").path,
        "COREMOTION_SOURCE": nil,
      ],
      standardOutput: .appendToFile(logPath), standardError: .appendToFile(logPath))
    self.process = process
    // Ready when a client can complete the handshake.
    // Each probe is closed at once, so that it holds none of the daemon's connection places.
    try waitUntil(seconds: 30, "motiond to listen on \(socketPath)") {
      let probe = DaemonClient(socketPath: socketPath, clientName: "probe")
      defer { probe.close() }
      return (try? probe.connect(timeout: 1)) != nil
    }
  }

  /// Starts the daemon again (same directories) after it stopped.
  func restart() throws {
    try launch()
  }

  /// SIGTERM, then waits for the exit (at most `seconds`); returns the exit status.
  @discardableResult
  func terminate(seconds: Double = 20) throws -> Int32 {
    if let status = process.terminationStatus { return status }
    process.send(SIGTERM)
    guard process.waitForExit(seconds: seconds), let status = process.terminationStatus else {
      throw Failure(
        description: "timed out after \(seconds) s waiting for motiond to exit after SIGTERM")
    }
    return status
  }

  /// SIGKILL, as in a crash; returns the wall time of the kill.
  @discardableResult
  func killHard() throws -> Date {
    let now = Date()
    process.send(SIGKILL)
    guard process.waitForExit(seconds: 10) else {
      throw Failure(description: "motiond did not die within 10 s of SIGKILL")
    }
    return now
  }

  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  deinit {
    process?.stop(grace: 0)
    try? FileManager.default.removeItem(at: directory)
  }
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass (then throws, naming `what`).
func waitUntil(seconds: Double, _ what: String, _ condition: () throws -> Bool) throws {
  let deadline = Date(timeIntervalSinceNow: seconds)
  while true {
    if try condition() { return }
    if Date() > deadline {
      throw DaemonProcess.Failure(description: "timed out after \(seconds) s waiting for \(what)")
    }
    usleep(20_000)
  }
}

/// Runs an async daemon request from synchronous test code.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
  let outcome = Locked<Result<T, any Error>?>(nil)
  let done = DispatchSemaphore(value: 0)
  Task {
    let result: Result<T, any Error>
    do { result = .success(try await body()) } catch { result = .failure(error) }
    outcome.withLock { $0 = result }
    done.signal()
  }
  guard done.wait(timeout: .now() + 60) == .success, let result = outcome.withLock({ $0 }) else {
    throw DaemonProcess.Failure(description: "request did not finish in 60 s")
  }
  return try result.get()
}

/// A child program whose standard output is collected line by line while it runs.
final class ChildProgram: Sendable {
  let process: ChildProcess

  init(
    _ name: String, arguments: [String], environment extra: [String: String],
    removing: [String] = []
  ) throws {
    let url = DaemonProcess.productsDirectory.appendingPathComponent(name)
    guard FileManager.default.isExecutableFile(atPath: url.path) else {
      throw DaemonProcess.Failure(description: "\(name) was not built at \(url.path)")
    }
    var environment: [String: String?] = extra
    for key in removing { environment[key] = .some(nil) }
    process = try ChildProcess(
      url, arguments: arguments, environment: environment, standardError: .discard)
  }

  var lines: [String] { process.standardOutput.split(separator: "\n").map(String.init) }

  func waitForExit(seconds: Double) throws {
    guard process.waitForExit(seconds: seconds) else {
      throw DaemonProcess.Failure(
        description: "timed out after \(seconds) s waiting for \(process.name) to exit")
    }
    guard process.waitForOutputEnd(seconds: 5) else {
      throw DaemonProcess.Failure(
        description: "\(process.name) exited but its output did not end within 5 s")
    }
  }

  deinit { process.stop(grace: 0) }
}
