// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import Testing

@_spi(Benchmarks) @testable import MotionDaemon

/// The dashboard's history panel computed from a store written by hand.
@Suite struct DaemonDashboardHistoryTests {
  let directory = "/tmp/motiond-dashboard-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

  @Test func daysSplitStepsAndActivityAtLocalMidnight() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = try HistoryStore.open(directory: directory, logger: Logger(label: "test"))
    defer { store.close() }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
    // 2026-11-25 10:00 in Berlin; yesterday's last minute and today's first minute have steps.
    let now = try #require(
      calendar.date(from: DateComponents(year: 2026, month: 11, day: 25, hour: 10)))
    let midnight = calendar.startOfDay(for: now).timeIntervalSince1970
    var batch = HistoryBatch()
    var minute = HistoryBatch.StepDelta()
    minute.steps = 30
    batch.steps[Int64(midnight) - 60] = minute
    minute.steps = 12
    batch.steps[Int64(midnight)] = minute
    // Walking from 20 min before midnight to 10 min after, then stationary until now.
    batch.activities = [
      .init(startDate: midnight - 1200, timestamp: 1, flags: 2, confidence: 2),
      .init(startDate: midnight + 600, timestamp: 2, flags: 1, confidence: 2),
    ]
    batch.recorded = [
      .init(timestamp: 1, date: midnight + 5, acceleration: SIMD3(0, 0, 9.8)),
      .init(timestamp: 1.02, date: midnight + 5.02, acceleration: SIMD3(0, 0, 9.8)),
    ]
    try store.write(batch, firstIdentifier: 0)

    let days = try DaemonDashboardHistory.days(store: store, now: now, calendar: calendar)
    #expect(days.map(\.date) == (19...25).map { "2026-11-\($0)" })
    #expect(days[5].steps == 30)
    #expect(days[6].steps == 12)
    #expect(days[5].activitySeconds == ["walking": 1200])
    #expect(days[6].activitySeconds == ["walking": 600, "stationary": 10 * 3600 - 600])
    #expect(days[0].activitySeconds.isEmpty)
    let extent = try #require(try store.recordedExtent())
    #expect(abs(extent.start - (midnight + 5)) < 1e-3)
    #expect(extent.end >= extent.start)
  }

  @Test func aChangeWithSeveralActivitiesCountsForEach() {
    let changes = [
      HistoryBatch.ActivityChange(startDate: 0, timestamp: 0, flags: 1 | 16, confidence: 1)
    ]
    let seconds = DaemonDashboardHistory.activitySeconds(changes, from: 10, to: 70, now: 100)
    #expect(seconds == ["stationary": 60, "automotive": 60])
  }
}
