// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import Testing

/// `DaemonClient.isHistoryAuthorized` while disconnected and knowing an answer: each read returns
/// it and, at most once a second, refreshes it on a thread of its own. An app reads it on its
/// main thread as often as it likes (`CMPedometer.authorizationStatus()`); without the bound each
/// read would start an attempt to connect. Against a daemon that closes every connection once it
/// has answered the handshake, each refresh is one connection the daemon counts, and leaves the
/// client disconnected again, ready for the next.
@Suite struct DaemonClientAuthorizationRefreshTests {
  @Test func readsInATightLoopRefreshAtMostOnceASecondAndSeeAChange() throws {
    let daemon = try FakeDaemon()
    daemon.closesAfterHello = true
    let client = DaemonClient(socketPath: daemon.path)
    defer { client.close() }
    // Knowing nothing yet, the first read connects on this thread.
    #expect(client.isHistoryAuthorized)
    #expect(daemon.accepted == 1)
    try waitUntil(seconds: 30, "the daemon to close the first connection") { !client.isConnected }

    // The user denies history while the client is away; the first refresh is due 1 s after the
    // first read.
    daemon.historyAuthorized = false
    let changed = ProcessInfo.processInfo.systemUptime
    var seen: Double?
    var reads = 0
    // At least 2 s of reads, and on until the denial is seen (at most 8 s: a loaded machine may
    // start a refresh thread late). A refresh at most once a second makes one per second of the
    // loop at most, plus the one under way when it ends; without the bound, every read would
    // start one (hundreds).
    var elapsed = 0.0
    while elapsed < 2 || (seen == nil && elapsed < 8) {
      let authorized = client.isHistoryAuthorized
      reads += 1
      elapsed = ProcessInfo.processInfo.systemUptime - changed
      if !authorized, seen == nil { seen = elapsed }
    }
    // A refresh started at the end of the loop connects within its 0.5 s.
    Thread.sleep(forTimeInterval: 0.6)
    let refreshes = daemon.accepted - 1
    let most = Int(elapsed.rounded(.up)) + 1
    #expect(
      (1...most).contains(refreshes),
      "\(refreshes) refreshes for \(reads) reads in \(elapsed) s")
    #expect(seen != nil, "the denial was not seen within 8 s (\(reads) reads)")
    #expect(!client.isHistoryAuthorized)
  }
}
