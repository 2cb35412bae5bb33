// SPDX-License-Identifier: Apache-2.0

import Foundation
import GRDB
import Logging
import Testing

@_spi(Benchmarks) @testable import MotionDaemon

/// The history file is the user's: anyone with their account can edit it with `sqlite3`, and a
/// damaged disk can change it. Values motiond never writes (a text where a count belongs, a count
/// at Int64's limit, a blob) must give a sensible answer or a clear error, never stop the daemon,
/// which serves every app of the session.
@Suite struct HistoryStoreHostileFileTests {
  let directory = "/tmp/motiond-hostile-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
  let logger = Logger(label: "test")

  /// Runs `sql` on the store's file through a connection of its own, as someone editing it would.
  func tamper(_ sql: String) throws {
    let queue = try DatabaseQueue(path: directory + "/" + HistoryStore.fileName)
    try queue.write { try $0.execute(sql: sql) }
    try queue.close()
  }

  /// A store with one good minute (60 steps at 6000 s), two activity changes (100 s, 200 s) and
  /// 100 recorded samples from 1000 s, then edited by hand.
  func hostileStore() throws -> HistoryStore {
    let store = try HistoryStore.open(directory: directory, logger: logger)
    var batch = HistoryBatch()
    var minute = HistoryBatch.StepDelta()
    minute.steps = 60
    minute.distance = 42
    batch.steps[6000] = minute
    batch.activities = [
      .init(startDate: 100, timestamp: 1, flags: 1, confidence: 2),
      .init(startDate: 200, timestamp: 2, flags: 2, confidence: 1),
    ]
    for k in 0..<100 {
      let t = Double(k) * 0.02
      batch.recorded.append(.init(timestamp: 50 + t, date: 1000 + t, acceleration: .zero))
    }
    try store.write(batch, firstIdentifier: 0)
    try tamper(
      """
      INSERT INTO step_minute VALUES(6060, 9223372036854775807, 0, 0, 0, 0);
      INSERT INTO step_minute VALUES(6120, 'many', 0, 0, 0, 0);
      INSERT INTO step_minute VALUES(6180, 5, x'00', 0, 0, 0);
      INSERT INTO step_minute VALUES(6240, 1e300, 0, 0, 0, 0);
      INSERT INTO accel_block VALUES(1, 'x', 0, 0, 0, x'');
      INSERT INTO accel_block VALUES(1010, 1010, 'y', 0, 1, zeroblob(16));
      INSERT INTO accel_block VALUES(1020, 1e999, 0, 0, 0, x'');
      INSERT INTO activity_change VALUES(-1e999, 0, 1, 0);
      UPDATE activity_change SET flags = 'x' WHERE start_date = 200;
      """)
    return store
  }

  @Test func rowsWithValuesTheDaemonNeverWritesAreSkipped() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try hostileStore()
    defer { store.close() }
    // A text, a blob and a count beyond Int64 are skipped; Int64.max itself is an integer SQLite
    // holds, and is kept.
    let minutes = try store.stepMinutes(from: 6000, to: 6300)
    #expect(minutes.keys.sorted() == [6000, 6060])
    #expect(minutes[6060]?.steps == .max)
    // The activity with text flags is skipped, and the one at minus infinity: the one at 100 s
    // stays in force.
    #expect(try store.activities(from: 0, to: 400).map(\.startDate) == [100])
    // The block with a text timestamp is skipped, the empty one adds nothing.
    var dates: [Double] = []
    try store.accelerometer(from: 0, to: 2000) { dates += $0.map(\.date) }
    #expect(dates.count == 100)
    #expect(dates.first == 1000)
  }

  /// A block of more samples than 60 s at 1 kHz (20 times what motiond records) is not one
  /// motiond wrote: it is skipped and counted like the other damage, so a read that stops after a
  /// number of samples and resumes does not decode megabytes of one row again each time.
  @Test func aBlockOfMoreSamplesThanMotiondWritesIsSkipped() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try hostileStore()
    defer { store.close() }
    try tamper(
      """
      INSERT INTO accel_block VALUES(1500, 1500, 60, 10000, 60001, zeroblob(\(16 * 60_001)));
      INSERT INTO accel_block VALUES(1600, 1600, 60, 90000, 3, zeroblob(48));
      """)
    var dates: [Double] = []
    try store.accelerometer(from: 0, to: 2000) { dates += $0.map(\.date) }
    #expect(dates.count == 103)
    #expect(!dates.contains(1500))
    #expect(dates.suffix(3) == [1600, 1600, 1600])
  }

  /// Nothing in the schema bounds the activity changes of a week (their key is a REAL date): an
  /// edited file can hold any number, and a query used to read them all, building an answer the
  /// size of the file. A query now reads at most `limit` of them, one more telling that there
  /// are more, and fails with an error saying so; exactly `limit` rows are answered. Unusable
  /// rows count too (the row in force at 250 s, with text flags, is one of the 1,001 here).
  @Test func moreActivityChangesThanAQueryReadsGiveAClearError() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try hostileStore()
    defer { store.close() }
    // 1,000 changes 1 ms apart from 300 s, in one statement.
    try tamper(
      """
      WITH RECURSIVE n(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM n WHERE k < 999)
      INSERT INTO activity_change SELECT 300 + k * 0.001, k, 2, 2 FROM n;
      """)
    #expect(try store.activities(from: 250, to: 400, limit: 1_001).count == 1_000)
    #expect(try store.activities(from: 250, to: 400).count == 1_000)
    #expect(throws: HistoryStore.TooManyActivityChanges.self) {
      _ = try store.activities(from: 250, to: 400, limit: 1_000)
    }
    do {
      _ = try store.activities(from: 0, to: 400, limit: 10)
      Issue.record("read more changes than the limit")
    } catch let error as HistoryStore.TooManyActivityChanges {
      #expect(error.description.contains("more than 10 activity changes"))
    }
    // A range within the limit still answers.
    #expect(try store.activities(from: 250, to: 300.0045, limit: 10).count == 5)
  }

  @Test func extentsIgnoreDatesThatAreNotNumbers() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try hostileStore()
    defer { store.close() }
    // The text end date of one block would sort after every number (SQLite orders text after
    // numbers): it must not become the newest date, nor stop `status`. Infinite dates are left
    // out too.
    let extent = try #require(try store.extent())
    #expect(extent.oldest == 100)
    #expect(extent.newest == 6300)
    let recorded = try #require(try store.recordedExtent())
    #expect(recorded.start == 1000)
    #expect(recorded.end == 1010)
  }

  @Test func totalsAtInt64sLimitSaturateInsteadOfTrapping() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try hostileStore()
    defer { store.close() }
    // 2^63 - 1 steps plus the good minute's 60: the Double sum rounds to 2^63, which Int64 cannot
    // hold.
    let totals = try store.pedometerTotals(from: 6000, to: 6300)
    #expect(totals.steps == .max)
    #expect(abs(totals.distance - 42) < 1e-9)
    // The daemon's path: the stored minutes plus the steps not yet written, then the pro-rata sum.
    var minutes = try store.stepMinutes(from: 6000, to: 6300)
    var pending = HistoryBatch.StepDelta()
    pending.steps = 3
    pending.floorsAscended = .max
    minutes[6060, default: HistoryBatch.StepDelta()].add(pending)
    minutes[6060, default: HistoryBatch.StepDelta()].add(pending)
    #expect(minutes[6060]?.steps == .max)
    #expect(minutes[6060]?.floorsAscended == .max)
    let live = HistoryBatch.totals(of: minutes, from: 6000, to: 6300, now: 6300)
    #expect(live.steps == .max)
    #expect(live.floorsAscended == .max)
  }
}
