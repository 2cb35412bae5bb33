// SPDX-License-Identifier: Apache-2.0

import Foundation
import GRDB
import Logging
import MotionSensors

/// The per-user motion history: one SQLite file in WAL mode (GRDB `DatabasePool`).
///
/// Tables: `step_minute` (one row per minute with steps, distance, floors), `activity_change`
/// (Apple-style state-change rows), `accel_block` (recorded 50 Hz accelerometer in packed blocks,
/// see ``AccelerometerBlock``) and `recording_request`. Retention follows Apple: 7 days of
/// pedometer and activity, 3 days of recorded accelerometer.
@_spi(Benchmarks) public final class HistoryStore: @unchecked Sendable {
  // Sendable because GRDB's DatabasePool serialises writes and isolates reads itself; the other
  // properties are immutable.
  package let path: String
  private let pool: DatabasePool
  /// An exclusive `flock` on the store's directory, held while the store is open (released by
  /// ``close()``, or when the store is let go): one daemon per history.
  private let lock: InstanceLock
  private let logger: Logger
  /// The tables whose unusable rows (or, for `activity_change`, too many rows for a query) have
  /// been reported at warning level (later queries report them at debug level only: a client
  /// querying in a loop must not flood the log).
  private let reportedTables = Locked<Set<String>>([])

  static let fileName = "history.sqlite"
  /// Pedometer and activity retention, s.
  static let motionRetention = 7 * 86_400.0
  /// Recorded accelerometer retention, s.
  static let accelerometerRetention = 3 * 86_400.0

  /// The device and inode of the file opened, to notice it being deleted or replaced.
  private let fileIdentity: FileIdentity?

  private struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64

    init?(path: String) {
      var info = stat()
      guard lstat(path, &info) == 0 else { return nil }
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
    }
  }

  private init(path: String, pool: DatabasePool, lock: InstanceLock, logger: Logger) {
    self.path = path
    self.pool = pool
    self.lock = lock
    self.logger = logger
    self.fileIdentity = FileIdentity(path: path)
  }

  /// Whether the file at ``path`` is still the one this store opened. A store file deleted or
  /// replaced while open (someone removing the state folder to start afresh, a restore from a
  /// backup) goes on accepting writes in WAL mode: they land in a file no one will open again.
  package var isStillAtItsPath: Bool {
    guard let fileIdentity else { return true }
    return FileIdentity(path: path) == fileIdentity
  }

  /// Opens (or creates) the store in `directory` (created 0700). A file SQLite reports as corrupt
  /// or not a database is renamed to `history.sqlite.corrupt-DATE` with an error log line, and a
  /// new store is started.
  ///
  /// The store must be a regular file (or absent): a symbolic link would make SQLite write the
  /// history and its journal beside the link's target, where denying history would not delete
  /// them, and a directory or FIFO can never be a store. Those are left alone and refused with a
  /// ``HistoryStoreOpenError`` naming what is there; the daemon retries the open periodically.
  /// So is a `directory` another open store holds (another daemon's: two daemons on different
  /// sockets would each add their steps to the same minutes).
  ///
  /// - Parameter maximumPageCount: limits the file to this many pages (tests use it to simulate a
  ///   full disk: SQLite then fails writes with `SQLITE_FULL`).
  @_spi(Benchmarks) public static func open(
    directory: String, maximumPageCount: Int? = nil, logger: Logger
  ) throws -> HistoryStore {
    try makePrivateDirectory(directory)
    let path = directory + "/" + fileName
    for suffix in ["", "-wal", "-shm"] {
      if let problem = notARegularFile(path + suffix) {
        throw HistoryStoreOpenError(
          description:
            "\(path + suffix) is \(problem), not a regular file; motiond keeps its history only in a file of its own (so that denying history deletes it): move it away"
        )
      }
    }
    // One daemon per history: two daemons on different sockets (one started by systemd, one in
    // a session without XDG_RUNTIME_DIR, whose socket is in /tmp) both wrote their steps into the
    // same file, where each minute's rows add up, so every step was stored twice.
    let lock: InstanceLock
    do {
      // On the directory itself: a lock file would stay behind when history is denied, and
      // denying leaves only the denial marker.
      lock = try InstanceLock(
        path: directory,
        whenHeld:
          "another motiond is recording the motion history in \(directory) (it holds a lock on that directory); this one keeps no history while that one runs",
        isDirectory: true)
    } catch let failure as InstanceLock.Failure {
      throw HistoryStoreOpenError(description: failure.description)
    }
    do {
      return try openChecked(
        path: path, maximumPageCount: maximumPageCount, lock: lock, logger: logger)
    } catch let error as DatabaseError
      where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    {
      let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(
        of: ":", with: "")
      let aside = path + ".corrupt-" + stamp
      try? FileManager.default.moveItem(atPath: path, toPath: aside)
      for suffix in ["-wal", "-shm"] {
        try? FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
      }
      logger.error(
        "motion history \(path) is corrupt (\(error.resultCode)); moved it to \(aside) and started a new one"
      )
      return try openChecked(
        path: path, maximumPageCount: maximumPageCount, lock: lock, logger: logger)
    }
  }

  private static func makePrivateDirectory(_ path: String) throws {
    var status = stat()
    if lstat(path, &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
      throw HistoryStoreOpenError(
        description: "the history directory \(path) exists and is not a directory; move it away")
    }
    do {
      try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw HistoryStoreOpenError(
        description:
          "cannot create the history directory \(path): \((error as NSError).localizedDescription) (is a part of the path a file?)"
      )
    }
    _ = chmod(path, 0o700)
  }

  /// What is at `path` when it exists and is not a regular file (`nil`: absent or regular).
  private static func notARegularFile(_ path: String) -> String? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    switch status.st_mode & S_IFMT {
    case S_IFREG: return nil
    case S_IFLNK: return "a symbolic link"
    case S_IFDIR: return "a directory"
    case S_IFIFO: return "a FIFO"
    case S_IFSOCK: return "a socket"
    default: return "a device or other special file"
    }
  }

  private static func openChecked(
    path: String, maximumPageCount: Int?, lock: InstanceLock, logger: Logger
  ) throws -> HistoryStore {
    // Create the file 0600 first: SQLite gives its -wal and -shm files the database file's mode.
    // O_NOFOLLOW: never create a file through a link that appeared since the check.
    let fd = Foundation.open(path, O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
    if fd >= 0 { _ = Foundation.close(fd) }
    _ = chmod(path, 0o600)
    var configuration = Configuration()
    configuration.label = "motiond.history"
    // Another process (a backup, the sqlite3 shell) may hold a lock briefly: wait for it rather
    // than fail at once. A longer lock pauses writes (retried) or, at open, makes the store
    // unavailable until the writer's next attempt.
    configuration.busyMode = .timeout(2)
    configuration.prepareDatabase { db in
      // WAL + NORMAL: commits survive a crash of the daemon (kill -9); only a power loss may undo
      // the last transactions.
      try db.execute(sql: "PRAGMA synchronous = NORMAL")
      if let maximumPageCount {
        _ = try Int.fetchOne(db, sql: "PRAGMA max_page_count = \(max(1, maximumPageCount))")
      }
    }
    let pool = try DatabasePool(path: path, configuration: configuration)
    let result = try pool.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
    guard result == "ok" else {
      try? pool.close()
      throw DatabaseError(
        resultCode: .SQLITE_CORRUPT, message: "quick_check: \(result ?? "no answer")")
    }
    try migrator.migrate(pool)
    return HistoryStore(path: path, pool: pool, lock: lock, logger: logger)
  }

  private static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.execute(
        sql: """
          CREATE TABLE step_minute(
            start INTEGER PRIMARY KEY NOT NULL,
            steps INTEGER NOT NULL,
            distance REAL NOT NULL,
            floors_up INTEGER NOT NULL,
            floors_down INTEGER NOT NULL,
            active_seconds REAL NOT NULL);
          CREATE TABLE activity_change(
            start_date REAL PRIMARY KEY NOT NULL,
            timestamp REAL NOT NULL,
            flags INTEGER NOT NULL,
            confidence INTEGER NOT NULL);
          CREATE TABLE accel_block(
            start_date REAL PRIMARY KEY NOT NULL,
            end_date REAL NOT NULL,
            start_timestamp REAL NOT NULL,
            first_identifier INTEGER NOT NULL,
            count INTEGER NOT NULL,
            payload BLOB NOT NULL);
          CREATE INDEX accel_block_end ON accel_block(end_date);
          CREATE TABLE recording_request(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            requested_date REAL NOT NULL,
            until_date REAL NOT NULL);
          """)
    }
    return migrator
  }

  @_spi(Benchmarks) public func close() {
    try? pool.close()
    lock.release()
  }

  // MARK: Writing

  /// Writes `batch` in one transaction. Throws GRDB's `DatabaseError` (`SQLITE_FULL` when the disk
  /// or the page limit is full), in which case nothing of the batch was written.
  @_spi(Benchmarks) public func write(_ batch: HistoryBatch, firstIdentifier: UInt64) throws {
    guard !batch.isEmpty else { return }
    try pool.write { db in
      for (minute, delta) in batch.steps {
        try db.execute(
          sql: """
            INSERT INTO step_minute(start, steps, distance, floors_up, floors_down, active_seconds)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(start) DO UPDATE SET steps = steps + excluded.steps,
              distance = distance + excluded.distance, floors_up = floors_up + excluded.floors_up,
              floors_down = floors_down + excluded.floors_down,
              active_seconds = active_seconds + excluded.active_seconds
            """,
          arguments: [
            minute, delta.steps, delta.distance, delta.floorsAscended, delta.floorsDescended,
            delta.activeSeconds,
          ])
      }
      for change in batch.activities {
        try db.execute(
          sql:
            "INSERT OR REPLACE INTO activity_change(start_date, timestamp, flags, confidence) VALUES (?, ?, ?, ?)",
          arguments: [change.startDate, change.timestamp, change.flags, change.confidence])
      }
      // Blocks of consecutive samples, each spanning at most AccelerometerBlock.maximumSpan.
      var identifier = firstIdentifier
      var start = batch.recorded.startIndex
      while start < batch.recorded.endIndex {
        var end = start + 1
        while end < batch.recorded.endIndex,
          batch.recorded[end].timestamp - batch.recorded[start].timestamp
            < AccelerometerBlock.maximumSpan,
          batch.recorded[end].timestamp >= batch.recorded[end - 1].timestamp
        {
          end += 1
        }
        let slice = batch.recorded[start..<end]
        let first = slice.first!
        let last = slice.last!
        try db.execute(
          sql: """
            INSERT OR REPLACE INTO accel_block(start_date, end_date, start_timestamp, first_identifier, count, payload)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
          arguments: [
            first.date, first.date + (last.timestamp - first.timestamp), first.timestamp,
            Int64(bitPattern: identifier), slice.count, AccelerometerBlock.encode(slice),
          ])
        identifier &+= UInt64(slice.count)
        start = end
      }
    }
  }

  /// Recording requests kept at most (those ending last). Only the latest end is ever read; the
  /// cap keeps requests that do not overlap (short ones, far apart) from growing the file.
  static let maximumRecordingRequests = 100

  /// Records a `recordAccelerometer` request. A request that overlaps or adjoins a stored one
  /// extends it rather than adding a row: a client asking again and again, as apps renew their
  /// recording, must not grow the file by a row per call for 3 days.
  func addRecordingRequest(requestedDate: Double, untilDate: Double) throws {
    let isStored =
      "\(Self.isFiniteNumber("requested_date")) AND \(Self.isFiniteNumber("until_date"))"
    try pool.write { db in
      try db.execute(
        sql: """
          UPDATE recording_request
          SET requested_date = MIN(requested_date, ?1), until_date = MAX(until_date, ?2)
          WHERE id = (
            SELECT id FROM recording_request
            WHERE \(isStored) AND requested_date <= ?2 AND until_date >= ?1
            ORDER BY until_date DESC LIMIT 1)
          """,
        arguments: [requestedDate, untilDate])
      if db.changesCount == 0 {
        try db.execute(
          sql: "INSERT INTO recording_request(requested_date, until_date) VALUES (?, ?)",
          arguments: [requestedDate, untilDate])
      }
      // Rows that are not numbers (an edited file) sort last here, so they go first.
      try db.execute(
        sql: """
          DELETE FROM recording_request WHERE id NOT IN (
            SELECT id FROM recording_request
            ORDER BY (CASE WHEN \(isStored) THEN until_date END) DESC LIMIT ?)
          """,
        arguments: [Self.maximumRecordingRequests])
    }
  }

  /// The end of the latest recording request, s since 1970 (0: none).
  func recordingUntil() throws -> Double {
    try pool.read { db in
      try Double.fetchOne(
        db,
        sql:
          "SELECT MAX(until_date) FROM recording_request WHERE \(Self.isFiniteNumber("until_date"))"
      ) ?? 0
    }
  }

  /// The identifier the next recorded sample gets (continues across restarts).
  func nextIdentifier() throws -> UInt64 {
    try pool.read { db in
      let next =
        try Int64.fetchOne(db, sql: "SELECT MAX(first_identifier + count) FROM accel_block") ?? 0
      return UInt64(max(0, next))
    }
  }

  /// Deletes rows past their retention (pedometer/activity 7 days, accelerometer 3 days, requests
  /// that ended 3 days ago), then truncates the WAL.
  package func prune(now: Double) throws {
    try pool.write { db in
      try db.execute(
        sql: "DELETE FROM step_minute WHERE start < ?", arguments: [now - Self.motionRetention])
      // Keep the newest change before the cut: it is the activity in force at the window's start.
      try db.execute(
        sql: """
          DELETE FROM activity_change WHERE start_date < ?
            AND start_date < (SELECT MAX(start_date) FROM activity_change WHERE start_date < ?)
          """,
        arguments: [now - Self.motionRetention, now - Self.motionRetention])
      try db.execute(
        sql: "DELETE FROM accel_block WHERE end_date < ?",
        arguments: [now - Self.accelerometerRetention])
      try db.execute(
        sql: "DELETE FROM recording_request WHERE until_date < ?",
        arguments: [now - Self.accelerometerRetention])
    }
    try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }
  }

  // MARK: Queries

  /// Pedometer totals over [from, to] from the minute rows; a partly covered minute counts pro
  /// rata over the part of it before `now` (s since 1970; by default every minute is over and
  /// counts over its 60 s).
  @_spi(Benchmarks) public func pedometerTotals(
    from: Double, to: Double, now: Double = .infinity
  ) throws -> HistoryBatch.StepDelta {
    HistoryBatch.totals(of: try stepMinutes(from: from, to: to), from: from, to: to, now: now)
  }

  /// The per-minute pedometer rows overlapping [from, to] (minute start → counts). A row holding
  /// what motiond never writes (a text, a negative count, an infinite distance) is skipped and
  /// logged.
  package func stepMinutes(from: Double, to: Double) throws -> [Int64: HistoryBatch.StepDelta] {
    let (minutes, skipped) = try pool.read { db in
      let rows = try Row.fetchAll(
        db, sql: "SELECT * FROM step_minute WHERE start < ? AND start + 60 > ?",
        arguments: [to, from])
      var minutes: [Int64: HistoryBatch.StepDelta] = [:]
      var skipped = SkippedRows()
      for row in rows {
        do {
          var delta = HistoryBatch.StepDelta()
          delta.steps = try row.storedInteger("steps", in: 0...Int64.max)
          delta.distance = try row.storedNumber("distance", atLeast: 0)
          delta.floorsAscended = try row.storedInteger("floors_up", in: 0...Int64.max)
          delta.floorsDescended = try row.storedInteger("floors_down", in: 0...Int64.max)
          delta.activeSeconds = try row.storedNumber("active_seconds", atLeast: 0)
          minutes[try row.storedInteger("start")] = delta
        } catch let error as StoredValueError {
          skipped.note(error)
        }
      }
      return (minutes, skipped)
    }
    report(skipped, table: "step_minute")
    return minutes
  }

  /// Activity changes one query reads at most (``activities(from:to:limit:)``).
  ///
  /// The store's contents must not set the size of an answer: the file is the user's, and one
  /// edited or damaged can hold any number of rows in a week (the key is a REAL date). At about
  /// 650,000 changes a week's answer passed the protocol's 16 MiB frame: the daemon disconnected
  /// the client as one that "does not read its replies", and every week-long query failed after
  /// reading and encoding the whole table. 100,000 is far above any real week: the classifier
  /// reports a change only at a 1 s window after the new class has led for 2 windows (3 for a
  /// vehicle), with hysteresis on the confidence too, and people change activity minutes apart;
  /// 100,000 is one change every 6 s, day and night, for the 7 days kept. At most about 34 bytes
  /// each on the wire, such an answer stays under 3.4 MB, within the frame limit and the 4 MiB a
  /// client's unsent replies may hold.
  package static let activityChangeLimit = 100_000

  /// A range of the store holds more activity changes than a query reads
  /// (``HistoryStore/activityChangeLimit``): more than motiond writes, so the file was edited or
  /// damaged. A client gets it as `ERROR_NOT_AVAILABLE` with this text.
  package struct TooManyActivityChanges: Error, CustomStringConvertible {
    package var limit: Int

    package var description: String {
      "the history holds more than \(limit) activity changes in that range, more than motiond "
        + "ever writes in a week: the file was damaged or edited (ask for a shorter range, or "
        + "delete the history to start afresh)"
    }
  }

  /// Activity changes in [from, to], preceded by the one in force at `from`; throws
  /// ``TooManyActivityChanges`` when there are more than `limit` of them (rows that turn out
  /// unusable count too: the read is bounded by the rows, not by what they hold).
  package func activities(
    from: Double, to: Double, limit: Int = HistoryStore.activityChangeLimit
  ) throws -> [HistoryBatch.ActivityChange] {
    let read: (changes: [HistoryBatch.ActivityChange], skipped: SkippedRows)
    do { read = try readActivities(from: from, to: to, limit: limit) } catch let error
      as TooManyActivityChanges
    {
      // Said once at warning level: the user should learn that the file is damaged, but a
      // client querying in a loop must not flood the log.
      let isFirst = reportedTables.withLock { $0.insert("activity_change (too many)").inserted }
      let message: Logger.Message = "motion history \(path): \(error)"
      if isFirst { logger.warning(message) } else { logger.debug(message) }
      throw error
    }
    report(read.skipped, table: "activity_change")
    return read.changes
  }

  private func readActivities(
    from: Double, to: Double, limit: Int
  ) throws -> (changes: [HistoryBatch.ActivityChange], skipped: SkippedRows) {
    try pool.read { db in
      // One row beyond the limit tells a range that holds more from one that holds exactly it.
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT * FROM activity_change
          WHERE start_date >= (SELECT COALESCE(MAX(start_date), ?) FROM activity_change WHERE start_date <= ?)
            AND start_date <= ?
          ORDER BY start_date
          LIMIT ?
          """,
        arguments: [from, from, to, min(limit, Int.max - 1) + 1])
      guard rows.count <= limit else { throw TooManyActivityChanges(limit: limit) }
      var changes: [HistoryBatch.ActivityChange] = []
      var skipped = SkippedRows()
      for row in rows {
        do {
          changes.append(
            HistoryBatch.ActivityChange(
              startDate: try row.storedNumber("start_date"),
              timestamp: try row.storedNumber("timestamp"),
              flags: try row.storedInteger("flags", in: 0...63),
              confidence: try row.storedInteger("confidence", in: 0...2)))
        } catch let error as StoredValueError {
          skipped.note(error)
        }
      }
      return (changes, skipped)
    }
  }

  /// Where a read of recorded samples stopped: the last sample delivered, as its block (the
  /// block's first date and its row) and its index in the block.
  ///
  /// A position in the read's own order (blocks by first date, then by row), not a date: blocks
  /// may overlap in time (after the wall clock was set back, or in a file written by someone
  /// else), and resuming at a date would then skip or repeat the samples of the other block. The
  /// row tells apart blocks of one first date, which only a file motiond did not make can hold.
  @_spi(Benchmarks) public struct RecordedPosition: Sendable, Equatable {
    public var blockStartDate: Double
    public var blockRow: Int64
    public var index: Int
  }

  /// Recorded samples with `from ≤ date ≤ to`, in order, in chunks of at most `chunkSize`.
  ///
  /// At most `limit` samples are delivered; the answer is where the read stopped, or `nil` when
  /// it reached the range's end. The same read with `after` that position goes on with the next
  /// sample, so a caller holds `limit` samples at a time however densely a store (or a file
  /// written by someone else, whose blocks may hold many samples) is filled, and the reads
  /// together deliver exactly what one unlimited read would.
  @_spi(Benchmarks) @discardableResult public func accelerometer(
    from: Double, to: Double, after: RecordedPosition? = nil, limit: Int = .max,
    chunkSize: Int = 20_000,
    _ body: ([(identifier: UInt64, timestamp: Double, date: Double, acceleration: SIMD3<Double>)])
      -> Void
  ) throws -> RecordedPosition? {
    let limit = max(1, limit)
    let chunkSize = max(1, min(chunkSize, limit))
    let (skipped, stoppedAt) = try pool.read { db -> (SkippedRows, RecordedPosition?) in
      let cursor = try Row.fetchCursor(
        db,
        // `end_date` is exact, a decoded date is rounded to the microsecond: a block whose last
        // sample reads up to 1 µs later than its end date is not left out. The resumption is one
        // row-value comparison, which SQLite answers with a range of the start-date index; as
        // an OR of two terms it collected and sorted every remaining block of the range, payloads
        // included, on every read (a 12 h answer in 108 reads took 4.7 s instead of 0.08 s on a
        // 3-day store, measured by a review with the same SQLite).
        sql: """
          SELECT rowid AS block_row, * FROM accel_block
          WHERE end_date >= ? - 1e-6 AND start_date <= ?
            AND (start_date, rowid) >= (?, ?)
          ORDER BY start_date, rowid
          """,
        arguments: [
          from, to, after?.blockStartDate ?? -Double.infinity, after?.blockRow ?? Int64.min,
        ])
      var chunk:
        [(identifier: UInt64, timestamp: Double, date: Double, acceleration: SIMD3<Double>)] = []
      chunk.reserveCapacity(chunkSize)
      var skipped = SkippedRows()
      var delivered = 0
      var last: RecordedPosition?
      while delivered < limit, let row = try cursor.next() {
        let payload: Data
        let firstIdentifier: UInt64
        let startTimestamp: Double
        let startDate: Double
        let blockRow: Int64
        do {
          blockRow = try row.storedInteger("block_row")
          payload = try row.storedBlob("payload")
          firstIdentifier = UInt64(bitPattern: try row.storedInteger("first_identifier"))
          startTimestamp = try row.storedNumber("start_timestamp")
          startDate = try row.storedNumber("start_date")
          guard payload.count <= AccelerometerBlock.maximumPayloadBytes else {
            throw StoredValueError(
              column: "payload", value: payload.databaseValue,
              expected: "at most \(AccelerometerBlock.maximumPayloadBytes) bytes")
          }
        } catch let error as StoredValueError {
          skipped.note(error)
          continue
        }
        // The block the last read stopped in (rows are unique) goes on after its last delivered
        // sample.
        let startIndex = after.map { $0.blockRow == blockRow ? $0.index + 1 : 0 } ?? 0
        AccelerometerBlock.decode(
          payload, startTimestamp: startTimestamp, startDate: startDate,
          firstIdentifier: firstIdentifier, startIndex: startIndex
        ) { index, identifier, timestamp, date, acceleration in
          guard date >= from, date <= to else { return true }
          chunk.append((identifier, timestamp, date, acceleration))
          delivered += 1
          last = RecordedPosition(blockStartDate: startDate, blockRow: blockRow, index: index)
          // Within the block too: a block written by someone else may hold many samples.
          if chunk.count >= chunkSize {
            body(chunk)
            chunk.removeAll(keepingCapacity: true)
          }
          return delivered < limit
        }
      }
      body(chunk)
      // Stopped by the limit: the caller goes on from the last sample (a read that ends exactly
      // at the range's end then finds nothing more and says so).
      return (skipped, delivered >= limit ? last : nil)
    }
    report(skipped, table: "accel_block")
    return stoppedAt
  }

  /// The oldest and newest dates in the history, or `nil` when it is empty.
  ///
  /// Rows whose dates are not finite numbers are left out, as the queries skip them: SQLite sorts
  /// a text after every number, so one would otherwise be the newest date.
  func extent() throws -> (oldest: Double, newest: Double)? {
    try pool.read { db in
      let row = try Row.fetchOne(
        db,
        sql: """
          SELECT MIN(o) AS oldest, MAX(n) AS newest FROM (
            SELECT MIN(start) AS o, MAX(start) + 60 AS n FROM step_minute
            UNION ALL SELECT MIN(start_date), MAX(start_date) FROM activity_change
              WHERE \(Self.isFiniteNumber("start_date"))
            UNION ALL SELECT MIN(start_date), MAX(end_date) FROM accel_block
              WHERE \(Self.isFiniteNumber("start_date")) AND \(Self.isFiniteNumber("end_date")))
          """)
      return try row.flatMap { try Self.dateRange($0, "oldest", "newest") }
    }
  }

  /// The dates of the oldest and newest recorded accelerometer samples, or `nil` without any.
  /// Blocks whose dates are not finite numbers are left out (as in ``extent()``).
  func recordedExtent() throws -> (start: Double, end: Double)? {
    try pool.read { db in
      let row = try Row.fetchOne(
        db,
        sql: """
          SELECT MIN(start_date) AS start, MAX(end_date) AS end FROM accel_block
          WHERE \(Self.isFiniteNumber("start_date")) AND \(Self.isFiniteNumber("end_date"))
          """)
      return try row.flatMap { try Self.dateRange($0, "start", "end") }
    }
  }

  /// SQL that holds for a row whose `column` is a finite number (not a text, blob, NULL or
  /// infinity). The literal is the largest finite Double; a comparison, not `abs`, which fails
  /// the whole statement on Int64.min.
  private static func isFiniteNumber(_ column: String) -> String {
    "typeof(\(column)) IN ('integer', 'real') AND \(column) BETWEEN -\(Self.largestFinite) AND \(Self.largestFinite)"
  }

  private static let largestFinite = "1.7976931348623157e308"

  /// The two dates of an extent row, or `nil` when the tables hold none (both NULL).
  private static func dateRange(
    _ row: Row, _ first: String, _ last: String
  ) throws -> (Double, Double)? {
    guard try row.decode(DatabaseValue.self, forColumn: first) != .null else { return nil }
    return (try row.storedNumber(first), try row.storedNumber(last))
  }

  /// Logs the rows a query skipped: at warning level the first time for `table`, then at debug
  /// level.
  private func report(_ skipped: SkippedRows, table: String) {
    guard let first = skipped.first else { return }
    let isFirst = reportedTables.withLock { $0.insert(table).inserted }
    let message: Logger.Message =
      "motion history \(path): skipped \(skipped.count) row(s) of \(table) holding values motiond does not write (\(first)); the file was damaged or edited"
    if isFirst {
      logger.warning(message)
    } else {
      logger.debug(message)
    }
  }

  /// Bytes on disk (database, WAL and shared-memory files).
  @_spi(Benchmarks) public var sizeInBytes: UInt64 {
    ["", "-wal", "-shm"].reduce(0) { sum, suffix in
      let size =
        (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? NSNumber)??
        .uint64Value
      return sum + (size ?? 0)
    }
  }

  /// Deletes the store's files (privacy: deny): the store, its `-wal`/`-shm`/`-journal`, and
  /// every copy moved aside as corrupt (`history.sqlite.corrupt-DATE` and its `-wal`/`-shm`),
  /// which hold the user's history too. Only regular files are removed: a link or directory of
  /// that name was never written by the daemon (``open`` refuses them). The store must be closed
  /// first.
  static func deleteFiles(directory: String) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    for name in names
    where name == fileName || name.hasPrefix(fileName + "-")
      || name.hasPrefix(fileName + ".corrupt-")
    {
      let path = directory + "/" + name
      if notARegularFile(path) == nil { unlink(path) }
    }
  }
}
