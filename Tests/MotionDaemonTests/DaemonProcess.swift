// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient

#if canImport(Glibc)
import Glibc
#endif

/// A `motiond` started for one test in its own temporary XDG directories.
final class DaemonProcess: @unchecked Sendable {
  // Sendable: `process` is replaced only by the test thread (restart); Process itself is thread-safe.
  let directory: URL
  let source: String
  let extraArguments: [String]
  private(set) var process: Process

  var socketPath: String { directory.appendingPathComponent("run/opencoremotion/motiond.sock").path }
  var stateDirectory: String { directory.appendingPathComponent("state/opencoremotion").path }
  var logPath: String { directory.appendingPathComponent("motiond.log").path }

  /// The folder holding the built products (next to the test bundle).
  static var productsDirectory: URL {
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      return bundle.bundleURL.deletingLastPathComponent()
    }
    if let executable = Bundle.main.executableURL {
      let directory = executable.deletingLastPathComponent()
      if FileManager.default.fileExists(atPath: directory.appendingPathComponent("motiond").path) { return directory }
    }
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug")
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  init(source: String, extraArguments: [String] = [], directory: URL? = nil) throws {
    // A short path: a Unix socket path must fit in 107 bytes.
    let fresh = URL(fileURLWithPath: "/tmp/motiond-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    self.directory = directory ?? fresh
    try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
    self.source = source
    self.extraArguments = extraArguments
    process = Process()
    try launch()
  }

  private func launch() throws {
    let binary = Self.productsDirectory.appendingPathComponent("motiond")
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
      throw Failure(description: "motiond was not built at \(binary.path)")
    }
    let process = Process()
    process.executableURL = binary
    process.arguments =
      ["--source", source, "--socket", socketPath, "--state-directory", stateDirectory, "--log-level", "debug"]
      + extraArguments
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("run").path
    environment["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
    environment.removeValue(forKey: "COREMOTION_SOURCE")
    process.environment = environment
    FileManager.default.createFile(atPath: logPath, contents: nil)
    let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
    log.seekToEndOfFile()
    process.standardError = log
    process.standardOutput = log
    try process.run()
    self.process = process
    // Ready when a client can complete the handshake.
    try waitUntil(seconds: 30, "motiond to listen on \(socketPath)") {
      (try? DaemonClient(socketPath: socketPath, clientName: "probe").connect(timeout: 1)) != nil
    }
  }

  /// Starts the daemon again (same directories) after it stopped.
  func restart() throws {
    try launch()
  }

  /// SIGTERM, then waits for the exit (at most `seconds`); returns the exit status.
  @discardableResult
  func terminate(seconds: Double = 20) throws -> Int32 {
    guard process.isRunning else { return process.terminationStatus }
    kill(process.processIdentifier, SIGTERM)
    try waitUntil(seconds: seconds, "motiond to exit after SIGTERM") { !process.isRunning }
    return process.terminationStatus
  }

  /// SIGKILL, as in a crash; returns the wall time of the kill.
  @discardableResult
  func killHard() throws -> Date {
    let now = Date()
    kill(process.processIdentifier, SIGKILL)
    try waitUntil(seconds: 10, "motiond to die after SIGKILL") { !process.isRunning }
    return now
  }

  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    try? FileManager.default.removeItem(at: directory)
  }
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass (then throws, naming `what`).
func waitUntil(seconds: Double, _ what: String, _ condition: () throws -> Bool) throws {
  let deadline = Date(timeIntervalSinceNow: seconds)
  while true {
    if try condition() { return }
    if Date() > deadline { throw DaemonProcess.Failure(description: "timed out after \(seconds) s waiting for \(what)") }
    usleep(20_000)
  }
}

/// Runs an async daemon request from synchronous test code.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
  let box = Box<Result<T, any Error>>()
  let done = DispatchSemaphore(value: 0)
  Task {
    do { box.value = .success(try await body()) } catch { box.value = .failure(error) }
    done.signal()
  }
  guard done.wait(timeout: .now() + 60) == .success, let result = box.value else {
    throw DaemonProcess.Failure(description: "request did not finish in 60 s")
  }
  return try result.get()
}

/// A value shared between threads under a lock.
final class Box<T>: @unchecked Sendable {
  // Sendable because `storage` is only touched under `lock`.
  private let lock = NSLock()
  private var storage: T?
  var value: T? {
    get { lock.withLock { storage } }
    set { lock.withLock { storage = newValue } }
  }
  init() {}
}

/// A child program whose standard output is collected line by line while it runs.
final class ChildProgram: @unchecked Sendable {
  // Sendable because `output` is only touched under `lock`.
  let process = Process()
  private let lock = NSLock()
  private var output = ""

  init(_ name: String, arguments: [String], environment extra: [String: String], removing: [String] = []) throws {
    let url = DaemonProcess.productsDirectory.appendingPathComponent(name)
    guard FileManager.default.isExecutableFile(atPath: url.path) else {
      throw DaemonProcess.Failure(description: "\(name) was not built at \(url.path)")
    }
    process.executableURL = url
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    for (key, value) in extra { environment[key] = value }
    for key in removing { environment.removeValue(forKey: key) }
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      guard let self, !data.isEmpty else { return }
      let text = String(decoding: data, as: UTF8.self)
      self.lock.withLock { self.output += text }
    }
    try process.run()
  }

  var lines: [String] { lock.withLock { output.split(separator: "\n").map(String.init) } }

  func waitForExit(seconds: Double) throws {
    try waitUntil(seconds: seconds, "\(process.executableURL?.lastPathComponent ?? "child") to exit") { !process.isRunning }
    // Let the readability handler drain the pipe.
    try waitUntil(seconds: 5, "the child's output") { lines.last == "done" || lines.contains { $0.hasPrefix("error") } }
  }

  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }
}
