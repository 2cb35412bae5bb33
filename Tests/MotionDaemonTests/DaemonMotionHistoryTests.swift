// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import OpenCoreMotion
import Testing

/// `CMPedometer`, `CMMotionActivityManager` and `CMSensorRecorder` on the daemon: their queries
/// answer from the daemon's store, which kept what happened before the app started. (Part of the
/// serialized daemon-process suite: one daemon at a time on a loaded machine.)
extension DaemonProcessTests {
  @Test func queriesAnswerFromTheDaemonsStoreNotOnlyFromWhatTheProcessSaw() throws {
    let daemon = try DaemonProcess(source: "simulator:walk?speed=4")
    let client = DaemonClient(socketPath: daemon.socketPath)
    try client.connect()
    // The simulated walk (about 36 steps) reaches the daemon's store.
    try waitUntil(seconds: 60, "the walk in the daemon's history") {
      let now = Date()
      let totals = try blocking {
        try await client.pedometerTotals(from: now.addingTimeInterval(-3600), to: now)
      }
      return totals.steps >= 20
    }
    // An app that starts now has observed nothing itself…
    let source = try DaemonSource(socketPath: daemon.socketPath)
    let live = InProcessMotionHistory(source: source, startsObserving: false)
    let history = DaemonMotionHistory(client: source.client, live: live)
    let now = Date()
    let window = (now.addingTimeInterval(-3600), now)
    #expect(live.pedometerSummary(from: window.0, to: window.1).numberOfSteps == 0)
    // …but the daemon kept the walk, and the history the CM* classes use answers from it.
    let summary = history.pedometerSummary(from: window.0, to: window.1)
    #expect(summary.numberOfSteps >= 20)
    #expect(summary.distance > 10)
    #expect(history.activities(from: window.0, to: window.1).contains { $0.estimate.walking })
    // A window that begins in the future has no activity: the last one recorded may have ended.
    let future = (now.addingTimeInterval(600), now.addingTimeInterval(1200))
    #expect(throws: (any Error).self) {
      try blocking { try await client.activities(from: future.0, to: future.1) }
    }
    #expect(history.activities(from: future.0, to: future.1).isEmpty)
    client.close()
    try daemon.terminate()
  }
}
