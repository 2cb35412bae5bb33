// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import Testing

@testable import OpenCoreMotion

/// Starting live pedometer updates on the daemon asks it for the totals since the start date.
/// It used to wait for the answer on the caller's thread for the whole query timeout (5 s), so a
/// stuck daemon froze an app's `startUpdates(from:)` call; it now waits a short while and lets
/// the answer arrive in the background.
@Suite struct DaemonMotionHistoryStartTests {
  /// A daemon that answers the handshake and subscriptions but no query, and the history of an
  /// app on it, whose queries would wait 10 minutes (the start used to wait for all of it).
  static func historyOfAStuckDaemon(
    startWait: Double
  ) throws -> (FakeDaemon, DaemonSource, DaemonMotionHistory) {
    let daemon = try FakeDaemon()
    daemon.answersQueries = false
    let source = try DaemonSource(socketPath: daemon.path)
    source.client.replyTimeout = 600
    let live = InProcessMotionHistory(source: source, startsObserving: false)
    let history = DaemonMotionHistory(
      client: source.client, live: live, queryTimeout: 600, startWait: startWait)
    return (daemon, source, history)
  }

  @Test func startingPedometerUpdatesDoesNotWaitForAStuckDaemon() throws {
    let (daemon, source, history) = try Self.historyOfAStuckDaemon(startWait: 0.2)
    defer { withExtendedLifetime(daemon) {} }
    let started = Date()
    let totals = history.pedometerUpdates(from: Date(timeIntervalSinceNow: -3_600))
    // A generous bound (a loaded machine wakes threads late), far below the 600 s of a wait.
    #expect(Date().timeIntervalSince(started) < 60)
    // Until the daemon answers, the totals are what this process observed: nothing.
    #expect(totals(Date()).numberOfSteps == 0)
    source.client.close()
  }

  /// A stop issued while the start still waits for the daemon wins, as it would had the start
  /// returned at once: the run the start was preparing does not begin after it.
  @Test func aStopDuringTheStartWins() throws {
    let (daemon, source, history) = try Self.historyOfAStuckDaemon(startWait: 5)
    defer { withExtendedLifetime(daemon) {} }
    let pedometer = CMPedometer(backend: history)
    let startReturned = DispatchSemaphore(value: 0)
    // Only the start's thread and then this one use it, in turn (the semaphore orders them).
    nonisolated(unsafe) let starting = pedometer
    Thread {
      starting.startUpdates(from: Date(timeIntervalSinceNow: -60)) { _, _ in }
      startReturned.signal()
    }.start()
    // The start ends the run in progress (none) before it asks for the totals, then waits for
    // them for up to 5 s; stop in that wait. (Not "once the daemon has the question": the
    // question goes out from the history's request queue, which a loaded test run may not
    // run for a while.)
    try waitUntil(seconds: 60, "the start to begin") { pedometer.updateChannel.endCount >= 1 }
    Thread.sleep(forTimeInterval: 0.2)
    pedometer.stopUpdates()
    #expect(startReturned.wait(timeout: .now() + 60) == .success)
    #expect(!pedometer.updateChannel.isActive, "the start began its run after the stop")
    source.client.close()
  }
}
