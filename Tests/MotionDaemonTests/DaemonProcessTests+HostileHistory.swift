// SPDX-License-Identifier: Apache-2.0

import Foundation
import GRDB
import Logging
@_spi(Benchmarks) import MotionDaemon
import MotionDaemonClient
import MotionDaemonProtocol
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

  /// An edited file with 700,000 activity changes in the last week (nothing in the schema bounds
  /// them): a week's answer (about 18 MB) passed the 16 MiB frame limit, and the daemon
  /// disconnected the client as one that "does not read its replies" after reading the whole
  /// table. The query now reads at most ``HistoryStore/activityChangeLimit`` rows and answers
  /// `ERROR_NOT_AVAILABLE` saying why; the same connection is served on, and a short range
  /// answers.
  @Test func moreActivityChangesThanAnAnswerHoldsGiveAClearErrorOnAnOpenConnection() throws {
    let directory = URL(
      fileURLWithPath: "/tmp/motiond-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    let state = directory.appendingPathComponent("state/opencoremotion")
    let now = Date().timeIntervalSince1970
    let store = try HistoryStore.open(directory: state.path, logger: Logger(label: "test"))
    store.close()
    // 700,000 changes 0.5 s apart from 6 days ago (4 days of them), in one statement.
    let first = now - 6 * 86_400
    let count = 700_000
    let last = first + Double(count - 1) * 0.5
    let queue = try DatabaseQueue(path: state.appendingPathComponent("history.sqlite").path)
    try queue.write { db in
      try db.execute(
        sql: """
          WITH RECURSIVE n(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM n WHERE k < \(count - 1))
          INSERT INTO activity_change SELECT \(first) + k * 0.5, k, 2, 2 FROM n;
          """)
    }
    try queue.close()

    let daemon = try DaemonProcess(source: "simulator:tour", directory: directory)
    let connection = try RawConnection(path: daemon.socketPath)
    func query(_ id: UInt64, from: Double) throws -> WireServerMessage? {
      try connection.write(
        Self.frame(id) {
          var query = Opencoremotion_Daemon_V1_ActivityQuery()
          query.fromDate = from
          query.toDate = now
          $0.activityQuery = query
        })
      return try connection.receive(seconds: 60)
    }
    let week = try #require(try query(1, from: now - 7 * 86_400 + 60), "disconnected")
    #expect(week.requestID == 1)
    guard case .error(let error) = week.body else {
      Issue.record("a week's answer: \(week.body.map { "\($0)".prefix(200) } ?? "none")")
      return
    }
    #expect(error.code == .notAvailable)
    #expect(error.message.contains("more than 100000 activity changes"), "\(error.message)")
    // The same connection is served on: the last day starts with the change in force (the
    // daemon's own detectors may have added some since it started).
    let day = try #require(try query(2, from: now - 86_400), "disconnected")
    #expect(day.requestID == 2)
    guard case .activities(let segments) = day.body else {
      Issue.record("a day's answer: \(day.body.map { "\($0)".prefix(200) } ?? "none")")
      return
    }
    #expect(segments.segments.first?.startDate == last)
    #expect(segments.segments.count < 1_000)
    #expect(!daemon.log.contains("does not read its replies"))
    #expect(daemon.log.contains("activity changes"))
    #expect(daemon.process.terminationStatus == nil, "motiond stopped: \(daemon.log)")
    #expect(try daemon.terminate() == 0)
  }
}
