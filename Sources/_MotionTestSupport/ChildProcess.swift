// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A program started by a test: spawned with `posix_spawn`, reaped with `waitpid`, its output
/// read by threads of its own. Every wait has a deadline.
///
/// Why not Foundation's `Process`: on Linux its exit monitoring can miss a child's exit, and then
/// `waitUntilExit()` never returns and `isRunning` stays true. A CI run of this suite hung that
/// way for the whole 90-minute limit. Here the test itself calls `waitpid`, so an exited child is
/// always seen.
///
/// The child runs in a process group of its own, so that stopping it also stops what it
/// started (Python's Selenium starts chromedriver, which starts Chromium). The pipe ends this side
/// keeps are close-on-exec, so another child spawned later cannot hold them open.
///
/// `@unchecked Sendable`: the mutable state (`exitStatus`, the collected output) is only touched
/// with `lock` held; `processIdentifier` and the descriptors are set in `init` and never change.
package final class ChildProcess: @unchecked Sendable {
  /// Where one of the child's output streams goes.
  package enum Output: Sendable {
    /// Read into memory while the child runs (see ``standardOutput`` and ``standardError``).
    case collect
    /// Appended to the file at this path (created if missing).
    case appendToFile(String)
    /// `/dev/null`.
    case discard
  }

  /// Why a spawn failed.
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// The child's process identifier (also its process-group identifier).
  package let processIdentifier: pid_t
  /// The program's file name, for messages.
  package let name: String

  private let lock = NSLock()
  private var exitStatus: Int32?
  private var collectedOutput = Data()
  private var collectedError = Data()
  private let readers = DispatchGroup()

  /// At most this much of each stream is kept (64 MiB); more is read and dropped, so that a
  /// chatty child never blocks on a full pipe.
  private static let collectionLimit = 64 << 20

  /// Starts `executable` with `arguments`; `environment` is applied over this process's
  /// environment (a `nil` value removes the variable). Standard input is `/dev/null`.
  package init(
    _ executable: URL, arguments: [String] = [], environment: [String: String?] = [:],
    standardOutput: Output = .collect, standardError: Output = .collect
  ) throws {
    name = executable.lastPathComponent
    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)

    // The read ends this side keeps, by the stream they collect.
    var readEnds: [(descriptor: Int32, isOutput: Bool)] = []
    var writeEnds: [Int32] = []
    defer { for descriptor in writeEnds { close(descriptor) } }
    for (target, output) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
      switch output {
      case .collect:
        var ends: [Int32] = [-1, -1]
        // pipe2(O_CLOEXEC) is not in the Glibc module; the short window before fcntl only matters
        // to another thread spawning at that very moment.
        guard pipe(&ends) == 0, fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0,
          fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0
        else {
          for (descriptor, _) in readEnds { close(descriptor) }
          throw Failure(description: "pipe for \(name): \(String(cString: strerror(errno)))")
        }
        readEnds.append((ends[0], target == 1))
        writeEnds.append(ends[1])
        // dup2 onto 1 or 2 clears close-on-exec on the copy the program keeps.
        posix_spawn_file_actions_adddup2(&actions, ends[1], target)
      case .appendToFile(let path):
        posix_spawn_file_actions_addopen(
          &actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
      case .discard:
        posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
      }
    }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // Own process group; signals unblocked and at their defaults (the test runner's threads may
    // block or ignore some, and a child inherits both).
    var emptySet = sigset_t()
    sigemptyset(&emptySet)
    var defaultSet = sigset_t()
    sigemptyset(&defaultSet)
    for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2] {
      sigaddset(&defaultSet, signal)
    }
    posix_spawnattr_setsigmask(&attributes, &emptySet)
    posix_spawnattr_setsigdefault(&attributes, &defaultSet)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let argumentStrings = [executable.path] + arguments
    let environmentStrings = merged.map { "\($0.key)=\($0.value)" }
    var argv = argumentStrings.map { strdup($0) } + [nil]
    var envp = environmentStrings.map { strdup($0) } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable.path, &actions, &attributes, &argv, &envp)
    guard result == 0 else {
      for (descriptor, _) in readEnds { close(descriptor) }
      throw Failure(
        description: "cannot start \(executable.path): \(String(cString: strerror(result)))")
    }
    processIdentifier = pid

    for (descriptor, isOutput) in readEnds {
      readers.enter()
      let thread = Thread { [self] in
        drain(descriptor, isOutput: isOutput)
        close(descriptor)
        readers.leave()
      }
      thread.name = "\(name) \(isOutput ? "stdout" : "stderr")"
      thread.start()
    }
  }

  /// Reads `descriptor` to its end into the collected output (up to the limit).
  private func drain(_ descriptor: Int32, isOutput: Bool) {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return }
      lock.withLock {
        let room = Self.collectionLimit - (isOutput ? collectedOutput.count : collectedError.count)
        guard room > 0 else { return }
        let chunk = buffer[0..<min(count, room)]
        if isOutput {
          collectedOutput.append(contentsOf: chunk)
        } else {
          collectedError.append(contentsOf: chunk)
        }
      }
    }
  }

  /// What the child has written to standard output so far (`.collect` only).
  package var standardOutput: String {
    lock.withLock { String(decoding: collectedOutput, as: UTF8.self) }
  }
  /// What the child has written to standard error so far (`.collect` only).
  package var standardError: String {
    lock.withLock { String(decoding: collectedError, as: UTF8.self) }
  }

  /// Reaps the child if it has exited; returns its status (see ``terminationStatus``) or `nil`.
  private func poll() -> Int32? {
    lock.withLock {
      if let exitStatus { return exitStatus }
      var status: Int32 = 0
      var result: pid_t
      repeat {
        result = waitpid(processIdentifier, &status, WNOHANG)
      } while result < 0 && errno == EINTR
      guard result == processIdentifier else { return nil }
      // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (they are macros in C).
      let signal = status & 0x7f
      exitStatus = signal == 0 ? (status >> 8) & 0xff : signal
      return exitStatus
    }
  }

  /// Whether the child is still running.
  package var isRunning: Bool { poll() == nil }

  /// The exit status, or the number of the signal that ended the child (as Foundation's
  /// `Process.terminationStatus`); `nil` while it runs.
  package var terminationStatus: Int32? { poll() }

  /// Waits until the child exits, at most `seconds`; returns whether it did.
  @discardableResult
  package func waitForExit(seconds: Double) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while poll() == nil {
      if Date() >= deadline { return false }
      usleep(10_000)
    }
    return true
  }

  /// Waits (at most `seconds`) until the collected streams reach their end, which is when the
  /// child and everything it started have closed them.
  @discardableResult
  package func waitForOutputEnd(seconds: Double) -> Bool {
    readers.wait(timeout: .now() + seconds) == .success
  }

  /// Sends `signal` to the child's whole process group.
  package func send(_ signal: Int32) {
    guard poll() == nil else { return }
    kill(-processIdentifier, signal)
  }

  /// SIGTERM to the process group; SIGKILL after `grace` seconds if the child still runs. Returns
  /// once the child has been reaped (SIGKILL cannot be refused, so that is at most a moment later).
  package func stop(grace: Double = 2) {
    guard isRunning else { return }
    send(SIGTERM)
    if !waitForExit(seconds: grace) {
      kill(-processIdentifier, SIGKILL)
      kill(processIdentifier, SIGKILL)
      waitForExit(seconds: 10)
    }
  }

  deinit { stop(grace: 0) }
}

extension ChildProcess {
  /// What ``run(_:arguments:environment:timeout:)`` produced.
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

  /// Runs `executable` with `arguments` to its end and collects both streams; `environment` is
  /// applied over this process's environment (a `nil` value removes the variable). After `timeout`
  /// seconds the program (and its process group) is sent SIGTERM, and SIGKILL two seconds later.
  package static func run(
    _ executable: URL, arguments: [String] = [], environment: [String: String?] = [:],
    timeout: Double = 120
  ) throws -> Result {
    let child = try ChildProcess(executable, arguments: arguments, environment: environment)
    let timedOut = !child.waitForExit(seconds: timeout)
    if timedOut { child.stop() }
    // The pipes close when the program and anything it started have exited; bounded regardless,
    // since a grandchild that ignores the process-group signal could keep them open.
    child.waitForOutputEnd(seconds: 10)
    return Result(
      status: child.terminationStatus ?? -1, standardOutput: child.standardOutput,
      standardError: child.standardError, timedOut: timedOut)
  }
}
