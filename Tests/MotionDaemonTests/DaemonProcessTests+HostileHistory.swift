// SPDX-License-Identifier: Apache-2.0

import Foundation
import GRDB
import Logging
@_spi(Benchmarks) import MotionDaemon
import MotionDaemonClient
import Testing

/// A history file edited by hand (it is the user's own file) must not stop the daemon that serves
/// every app of the session: each query answers, sensibly or with an error, and the daemon runs
/// on.
extension DaemonProcessTests {
  @Test func aHistoryFileEditedByHandAnswersQueriesWithoutStoppingTheDaemon() throws {
    let directory = URL(
      fileURLWithPath: "/tmp/motiond-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    let state = directory.appendingPathComponent("state/opencoremotion")
    let now = Date().timeIntervalSince1970
    let minute = (now / 60).rounded(.down) * 60 - 120
    var batch = HistoryBatch()
    batch.activities = [.init(startDate: now - 600, timestamp: 1, flags: 2, confidence: 2)]
    let store = try HistoryStore.open(directory: state.path, logger: Logger(label: "test"))
    try store.write(batch, firstIdentifier: 0)
    store.close()
    let queue = try DatabaseQueue(path: state.appendingPathComponent("history.sqlite").path)
    try queue.write { db in
      try db.execute(
        sql: """
          INSERT INTO step_minute VALUES(\(Int64(minute)), 9223372036854775807, 0, 0, 0, 0);
          INSERT INTO accel_block VALUES(1, 'x', 0, 0, 0, x'');
          UPDATE activity_change SET flags = 'x';
          """)
    }
    try queue.close()

    let daemon = try DaemonProcess(source: "simulator:tour", directory: directory)
    let client = DaemonClient(socketPath: daemon.socketPath)
    // status reads the history's extent: the text end date is ignored.
    let status = try blocking { try await client.status() }
    #expect(status.historyState == "recording")
    // 2^63 - 1 steps (plus any the daemon counted since): saturated, not a trap.
    let totals = try blocking {
      try await client.pedometerTotals(
        from: Date(timeIntervalSince1970: minute - 60), to: Date())
    }
    #expect(totals.steps >= 9.2e18)
    // The only activity change has text flags: skipped, so there is none to answer with.
    do {
      let segments = try blocking {
        try await client.activities(from: Date(timeIntervalSince1970: now - 3_600), to: Date())
      }
      #expect(segments.allSatisfy { $0.startDate.timeIntervalSince1970 > now - 600 })
    } catch let error as DaemonError {
      #expect(error.code == .noData)
    }
    let samples = try blocking {
      try await client.recordedAccelerometer(
        from: Date(timeIntervalSince1970: now - 3_600), to: Date())
    }
    #expect(samples.isEmpty)
    #expect(daemon.process.terminationStatus == nil, "motiond stopped: \(daemon.log)")
    #expect(daemon.log.contains("skipped"))
    client.close()
    #expect(try daemon.terminate() == 0)
  }
}
