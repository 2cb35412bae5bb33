// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemon
import MotionDaemonClient
import MotionDaemonProtocol
import MotionSensors
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A first subscription (no connection, no reconnection under way) to a daemon that takes the
/// connection and never answers the handshake (stopped with SIGSTOP, or stuck): `subscribe` spent
/// the whole 2 s handshake timeout on the caller's thread, which may be an app's main thread
/// setting an update interval, and then threw, so the stream never came back even once the
/// daemon answered. It now gives up on the caller's thread after 0.5 s, tells the stream
/// `.disconnected`, and reconnects for it in the background; the stream resumes when a daemon
/// answers. Bound: 1.5 s for `subscribe`, for a loaded machine (it threw after 2 s before).
@Suite struct DaemonFirstSubscriptionToAStuckDaemonTests {
  @Test func aFirstSubscriptionToAStuckDaemonReturnsPromptlyAndResumesWhenOneAnswers() throws {
    let harness = HandDrivenDaemon(label: "first-stuck")
    defer { harness.removeDirectory() }
    let socketPath = harness.configuration.socketPath
    try FileManager.default.createDirectory(
      atPath: harness.directory, withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    // A stuck daemon at the path: connections queue, and no handshake is ever answered.
    let stuck = try UnixSocket.listen(path: socketPath)
    var stuckIsOpen = true
    defer {
      if stuckIsOpen {
        stuck.close()
        unlink(socketPath)
      }
    }
    let client = DaemonClient(socketPath: socketPath)
    defer { client.close() }

    let events = Locked<[DaemonStreamEvent]>([])
    let start = ProcessInfo.processInfo.systemUptime
    let subscription: SourceSubscription
    do {
      subscription = try client.subscribe(DaemonStreamRequest(sensors: .accelerometer, rate: 50)) {
        event in events.withLock { $0.append(event) }
      }
    } catch {
      let took = ProcessInfo.processInfo.systemUptime - start
      Issue.record("subscribe threw after \(took) s: \(error)")
      return
    }
    let took = ProcessInfo.processInfo.systemUptime - start
    defer { subscription.cancel() }
    #expect(took < 1.5, "subscribe took \(took) s")
    let told = events.withLock { $0 }
    if told.count == 1, case .disconnected(let message) = told[0] {
      #expect(message.contains("did not answer the handshake"), "\(message)")
    } else {
      Issue.record("not told .disconnected alone before subscribe returned: \(told)")
    }

    // A daemon that answers takes the stuck one's place.
    stuck.close()
    unlink(socketPath)
    stuckIsOpen = false
    let daemon = try harness.start()
    defer { daemon.stop() }
    try expectResumedAfterOneDisconnection(
      events, feeding: harness.source, "a sample once a daemon answers, and .reconnected")
  }
}
