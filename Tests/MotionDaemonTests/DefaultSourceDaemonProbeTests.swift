// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import MotionDaemonProtocol
import Testing

@testable import SourceComposition

#if canImport(Glibc)
  import Glibc
#endif

/// With `COREMOTION_SOURCE` unset, the default source is the daemon when one answers at its
/// socket, else this process's own sources. A daemon that is there but does not answer (stopped
/// with SIGSTOP, stuck) held the first start of updates for the client's default 2 s, and the
/// fallback that followed, like the one from a socket left by a daemon that ended, said nothing.
/// The wait is now ``DefaultSourceFactory/daemonProbeTimeout`` (0.5 s) and the fallback comes
/// with a warning. Bound: 1.5 s, for a loaded machine (2 s and more before).
@Suite struct DefaultSourceDaemonProbeTests {
  @Test func aDaemonThatAnswersIsTheDefaultSource() throws {
    let harness = HandDrivenDaemon(label: "default-running")
    defer { harness.removeDirectory() }
    let daemon = try harness.start()
    defer { daemon.stop() }
    let resolved = SourceFactory.resolveDefaultSource(
      environment: [DaemonPaths.socketVariable: harness.configuration.socketPath])
    #expect(resolved.source is DaemonSource, "got \(resolved.source.name)")
    #expect(resolved.message == nil, "\(resolved.message ?? "")")
    #expect(resolved.warning == nil, "\(resolved.warning ?? "")")
  }

  @Test func aDaemonThatDoesNotAnswerIsPassedOverWithinASecondAndSaysSo() throws {
    let harness = HandDrivenDaemon(label: "default-stuck")
    defer { harness.removeDirectory() }
    try FileManager.default.createDirectory(
      atPath: harness.directory, withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    let socketPath = harness.configuration.socketPath
    // Connections queue on the listener, and no handshake is ever answered.
    let stuck = try UnixSocket.listen(path: socketPath)
    defer {
      stuck.close()
      unlink(socketPath)
    }
    let start = ProcessInfo.processInfo.systemUptime
    let resolved = SourceFactory.resolveDefaultSource(
      environment: [DaemonPaths.socketVariable: socketPath])
    let took = ProcessInfo.processInfo.systemUptime - start
    #expect(!(resolved.source is DaemonSource), "got \(resolved.source.name)")
    #expect(took < 1.5, "the default source took \(took) s")
    let warning = resolved.warning ?? ""
    #expect(warning.contains("not using the motion daemon"), "\(warning)")
    #expect(warning.contains(socketPath), "\(warning)")
    #expect(resolved.message == nil, "\(resolved.message ?? "")")
  }

  @Test func aSocketLeftByADaemonThatEndedIsPassedOverWithAWarning() throws {
    let harness = HandDrivenDaemon(label: "default-stale")
    defer { harness.removeDirectory() }
    let daemon = try harness.start()
    let socketPath = harness.configuration.socketPath
    // A daemon killed with SIGKILL leaves its socket behind; nobody listens on it.
    daemon.stop()
    if !FileManager.default.fileExists(atPath: socketPath) {
      let listener = try UnixSocket.listen(path: socketPath)
      listener.close()
    }
    try #require(FileManager.default.fileExists(atPath: socketPath), "no socket file to test with")
    let resolved = SourceFactory.resolveDefaultSource(
      environment: [DaemonPaths.socketVariable: socketPath])
    #expect(!(resolved.source is DaemonSource), "got \(resolved.source.name)")
    let warning = resolved.warning ?? ""
    #expect(warning.contains("not using the motion daemon"), "\(warning)")
  }
}
