// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors
import Testing

@_spi(Benchmarks) @testable import MotionDaemon

/// The history across a store file deleted under way, and across a stop.
@Suite struct HistoryServiceLifeCycleTests {
  /// A store file deleted while the daemon runs (someone clearing the state folder to start
  /// afresh). In WAL mode SQLite goes on accepting writes to the unlinked file, so the history
  /// used to vanish silently for the rest of the run; the writer now notices that the path no
  /// longer names the file it opened and opens the store again, with the activity in force.
  @Test func aStoreFileDeletedUnderwayIsOpenedAgain() throws {
    let history = TemporaryHistory("reopen")
    defer { history.remove() }
    let service = history.service
    var phone = StillPhoneFeed(service: service)
    let epoch = StillPhoneFeed.epoch
    phone.feed(0..<3_000)  // a minute at rest: the classifier reports it
    Thread.sleep(forTimeInterval: 0.3)  // a few flushes
    let path = history.directory + "/" + HistoryStore.fileName
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    // The writer notices within a flush or two and opens a new file at the path.
    try waitUntil(seconds: 30, "the store to be opened again") {
      FileManager.default.fileExists(atPath: path)
    }
    phone.feed(3_000..<6_000)  // another minute
    Thread.sleep(forTimeInterval: 0.3)
    #expect(service.condition == .recording)
    let reopened = try history.storeAfterStop()
    defer { reopened.close() }
    #expect(FileManager.default.fileExists(atPath: path), "a store at the path again")
    #expect(try !reopened.activities(from: epoch, to: epoch + 120).isEmpty)
  }

  /// The activity in force when the daemon stops does not last through the time it is stopped:
  /// an `unknown` change is filed at the last sample. It used to: a daemon stopped at rest in the
  /// evening showed a night at rest, and a query inside the gap answered "stationary".
  @Test func stoppingEndsTheActivityInForce() throws {
    let history = TemporaryHistory("stop")
    defer { history.remove() }
    let service = history.service
    var phone = StillPhoneFeed(service: service)
    let epoch = StillPhoneFeed.epoch
    phone.feed(0..<3_000)  // a minute at rest, the last sample at epoch + 59.98 s
    let store = try history.storeAfterStop()
    defer { store.close() }
    let whole = try store.activities(from: epoch, to: epoch + 3_600)
    #expect(whole.contains { $0.flags & 1 != 0 }, "at rest while running: \(whole)")
    let last = try #require(whole.last)
    #expect(last.flags == HistoryService.unknownActivityFlags)
    #expect(abs(last.startDate - (epoch + 59.98)) < 0.01)
    // An hour later, while stopped: unknown, not at rest.
    let later = try store.activities(from: epoch + 3_600, to: epoch + 3_700)
    #expect(later.map(\.flags) == [HistoryService.unknownActivityFlags])
  }

  /// A gap in the samples (a laptop suspended for an hour: the source's clock goes on where it
  /// stopped, the wall clock has moved on) is unknown, and the activity in force starts again
  /// after it. It used to last through the gap.
  @Test func aGapInTheSamplesIsUnknown() throws {
    let history = TemporaryHistory("gap")
    defer { history.remove() }
    let service = history.service
    var phone = StillPhoneFeed(service: service)
    let epoch = StillPhoneFeed.epoch
    phone.feed(0..<3_000)  // a minute at rest
    phone.wallClockOffset = 3_600  // suspended for an hour
    phone.feed(3_000..<4_500)  // half a minute at rest after it
    let store = try history.storeAfterStop()
    defer { store.close() }
    // Inside the gap: unknown from the last sample before it.
    let inside = try store.activities(from: epoch + 1_800, to: epoch + 1_900)
    #expect(inside.map(\.flags) == [HistoryService.unknownActivityFlags])
    #expect(abs((inside.first?.startDate ?? 0) - (epoch + 59.98)) < 0.01)
    // After it: at rest again from the first sample (epoch + 60 s + 1 h).
    let after = try store.activities(from: epoch + 3_665, to: epoch + 3_670)
    #expect(after.count == 1)
    #expect((after.first?.flags ?? 0) & 1 != 0, "\(after)")
    #expect(abs((after.first?.startDate ?? 0) - (epoch + 3_660)) < 0.01)
  }
}
