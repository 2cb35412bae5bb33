// SPDX-License-Identifier: Apache-2.0

import Foundation
import GRDB
import Logging
import Testing

@_spi(Benchmarks) @testable import MotionDaemon

/// `recordAccelerometer` requests are kept for 3 days; a client that asks in a loop must not grow
/// the history file by a row per call.
@Suite struct HistoryStoreRecordingRequestTests {
  let directory = "/tmp/motiond-recording-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

  /// The rows of `recording_request`, read through a connection of its own.
  func storedRequests() throws -> Int {
    let queue = try DatabaseQueue(path: directory + "/" + HistoryStore.fileName)
    defer { try? queue.close() }
    return try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM recording_request") }
      ?? -1
  }

  @Test func overlappingRequestsExtendOneRow() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try HistoryStore.open(directory: directory, logger: Logger(label: "test"))
    defer { store.close() }
    // A request every second for 10 minutes, each for the next 10 minutes.
    for k in 0..<600 {
      let now = 1_000 + Double(k)
      try store.addRecordingRequest(requestedDate: now, untilDate: now + 600)
    }
    #expect(try storedRequests() == 1)
    #expect(try store.recordingUntil() == 1_000 + 599 + 600)
    // One that starts where the recording ends adjoins it; a later one is a new row.
    try store.addRecordingRequest(requestedDate: 2_199, untilDate: 2_300)
    #expect(try storedRequests() == 1)
    try store.addRecordingRequest(requestedDate: 5_000, untilDate: 5_001)
    #expect(try storedRequests() == 2)
    #expect(try store.recordingUntil() == 5_001)
  }

  @Test func requestsThatNeverOverlapAreCapped() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try HistoryStore.open(directory: directory, logger: Logger(label: "test"))
    defer { store.close() }
    // 1 s requests 10 s apart: none overlaps another.
    for k in 0..<1_000 {
      let now = 10_000 + Double(k) * 10
      try store.addRecordingRequest(requestedDate: now, untilDate: now + 1)
    }
    #expect(try storedRequests() == HistoryStore.maximumRecordingRequests)
    // The latest end, the one the daemon records until, is among those kept.
    #expect(try store.recordingUntil() == 10_000 + 9_990 + 1)
  }
}
