// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import MotionDaemonProtocol
import Testing
import _MotionTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `accept` failing for a while (out of descriptors, buffers or memory) must pause the daemon's
/// accepting, not end it: a daemon that runs on but never accepts again is deaf to every app.
extension DaemonProcessTests {
  /// The lowest descriptor number free in process `pid` (the one its next `open` or `accept`
  /// would get).
  static func lowestFreeDescriptor(_ pid: pid_t) throws -> Int {
    let open = Set(
      try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { Int($0) })
    return (0...).first { !open.contains($0) }!
  }

  /// Runs util-linux's `prlimit` on process `pid`'s limit of open descriptors (Glibc's function
  /// of that name is not visible to Swift); returns its output.
  static func prlimit(_ pid: pid_t, _ arguments: [String]) throws -> String {
    let result = try ChildProcess.run(
      URL(fileURLWithPath: "/usr/bin/prlimit"), arguments: ["--pid", "\(pid)"] + arguments,
      timeout: 10)
    guard result.status == 0 else {
      throw DaemonProcess.Failure(description: "prlimit failed: \(result.standardError)")
    }
    return result.standardOutput
  }

  /// The daemon is limited (`prlimit`, RLIMIT_NOFILE) to the descriptors it holds, so `accept`
  /// fails with EMFILE while a client waits in the backlog; once the limit is lifted the waiting
  /// client is served, and new ones too.
  @Test func runningOutOfDescriptorsPausesAcceptingWithoutEndingIt() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let pid = daemon.process.processIdentifier
    let original = try Self.prlimit(pid, ["--nofile", "--raw", "--noheadings", "--output=SOFT"])
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let status = DaemonProcessTests.frame(1) {
      $0.status = Opencoremotion_Daemon_V1_StatusRequest()
    }
    // A descriptor freed below the limit (a probe client's socket closing late) lets one more
    // connection in: hold it and tighten again, until a connection is left waiting.
    var held: [RawConnection] = []
    var waiting: RawConnection?
    for _ in 0..<20 {
      _ = try Self.prlimit(pid, ["--nofile=\(try Self.lowestFreeDescriptor(pid)):"])
      let connection = try RawConnection(path: daemon.socketPath)
      try connection.write(status)
      guard try connection.receive(seconds: 5) != nil else {
        waiting = connection
        break
      }
      held.append(connection)
    }
    let stuck = try #require(waiting, "every connection was accepted despite the limit")
    _ = try Self.prlimit(pid, ["--nofile=\(original):"])
    let reply = try #require(try stuck.receive(seconds: 20), "the waiting client was never served")
    guard case .status = reply.body else {
      Issue.record("expected a status reply, got \(reply)")
      return
    }
    let client = DaemonClient(socketPath: daemon.socketPath)
    #expect(try blocking { try await client.status() }.clients.count >= 2)
    #expect(daemon.log.contains("cannot accept connections"))
    #expect(daemon.log.contains("accepting connections again"))
    client.close()
    held.removeAll()
    #expect(try daemon.terminate() == 0)
  }
}
