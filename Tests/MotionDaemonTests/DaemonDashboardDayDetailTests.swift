// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDashboard
import Testing

@_spi(Benchmarks) @testable import MotionDaemon

/// One day of the dashboard's history in detail (hourly steps, activity timeline), computed from
/// a store written by hand, in a fixed time zone with daylight saving time.
@Suite struct DaemonDashboardDayDetailTests {
  let directory = "/tmp/motiond-day-detail-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

  static func berlin() throws -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
    return calendar
  }

  static func date(
    _ calendar: Calendar, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0,
    _ second: Int = 0
  ) throws -> Date {
    try #require(
      calendar.date(
        from: DateComponents(
          year: 2026, month: month, day: day, hour: hour, minute: minute, second: second)))
  }

  /// Writes `steps` (minute start → steps) and `activities` into a fresh store and returns the
  /// seven days' detail as of `now`.
  func details(
    steps: [Double: Int64], activities: [HistoryBatch.ActivityChange], now: Date,
    calendar: Calendar
  ) throws -> [DashboardHistoryDayDetail] {
    let store = try HistoryStore.open(directory: directory, logger: Logger(label: "test"))
    defer { store.close() }
    var batch = HistoryBatch()
    for (minute, count) in steps {
      var delta = HistoryBatch.StepDelta()
      delta.steps = count
      batch.steps[Int64(minute)] = delta
    }
    batch.activities = activities
    try store.write(batch, firstIdentifier: 0)
    return try DaemonDashboardHistory.dayDetails(store: store, now: now, calendar: calendar)
  }

  @Test func todayHasHourlyStepsAndATimelineEndingNow() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let calendar = try Self.berlin()
    // 2026-11-25 10:30:20 in Berlin: the current minute (10:30) began 20 s ago.
    let now = try Self.date(calendar, 11, 25, 10, 30, 20)
    let midnight = calendar.startOfDay(for: now).timeIntervalSince1970
    let steps: [Double: Int64] = [
      midnight - 60: 30,  // yesterday's last minute
      midnight + 9 * 3600 + 15 * 60: 40,  // 09:15
      midnight + 9 * 3600 + 59 * 60: 5,  // 09:59
      midnight + 10 * 3600 + 30 * 60: 7,  // 10:30, the current minute
    ]
    let activities: [HistoryBatch.ActivityChange] = [
      // Walking from 23:40 yesterday, then stationary in a car (two flags) from 00:10 with medium
      // confidence, then walking with high confidence from 09:00 until now.
      .init(startDate: midnight - 1200, timestamp: 1, flags: 2, confidence: 2),
      .init(startDate: midnight + 600, timestamp: 2, flags: 1 | 16, confidence: 1),
      .init(startDate: midnight + 9 * 3600, timestamp: 3, flags: 2, confidence: 2),
    ]
    let days = try details(steps: steps, activities: activities, now: now, calendar: calendar)
    #expect(days.map(\.date) == (19...25).map { "2026-11-\($0)" })
    let today = try #require(days.last)
    #expect(today.start == midnight)
    #expect(today.end == midnight + 86_400)
    #expect(today.hours.count == 24)
    #expect(today.hours.map(\.hour) == Array(0..<24))
    #expect(today.hours.map(\.start) == (0..<24).map { midnight + Double($0) * 3600 })
    #expect(today.hours[9].steps == 45)
    // The current minute counts whole (not 20/60 of it).
    #expect(today.hours[10].steps == 7)
    #expect(today.hours.map(\.steps).reduce(0, +) == 52)
    #expect(days[5].hours[23].steps == 30)
    #expect(days[5].hours.map(\.steps).reduce(0, +) == 30)

    #expect(
      today.segments == [
        .init(start: midnight, end: midnight + 600, activities: ["walking"], confidence: "high"),
        .init(
          start: midnight + 600, end: midnight + 9 * 3600,
          activities: ["stationary", "automotive"], confidence: "medium"),
        .init(
          start: midnight + 9 * 3600, end: now.timeIntervalSince1970, activities: ["walking"],
          confidence: "high"),
      ])
    // Yesterday's walk is clipped at midnight; the days before have no activity.
    #expect(
      days[5].segments == [
        .init(start: midnight - 1200, end: midnight, activities: ["walking"], confidence: "high")
      ])
    #expect(days[0].segments.isEmpty)
    #expect(days[0].hours.allSatisfy { $0.steps == 0 })
  }

  @Test func theDayTheClocksGoForwardHas23Hours() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let calendar = try Self.berlin()
    // 2026-03-29: 02:00 CET becomes 03:00 CEST.
    let now = try Self.date(calendar, 3, 29, 20)
    let midnight = calendar.startOfDay(for: now).timeIntervalSince1970
    let halfPastThree = try Self.date(calendar, 3, 29, 3, 30).timeIntervalSince1970
    let oneFiftyNine = try Self.date(calendar, 3, 29, 1, 59).timeIntervalSince1970
    let days = try details(
      steps: [halfPastThree: 50, oneFiftyNine: 9], activities: [], now: now, calendar: calendar)
    let today = try #require(days.last)
    #expect(today.date == "2026-03-29")
    #expect(today.end - today.start == 23 * 3600)
    #expect(today.hours.count == 23)
    #expect(today.hours.map(\.hour) == [0, 1] + Array(3..<24))
    #expect(today.hours[1].steps == 9)
    #expect(today.hours[2].steps == 50)
    #expect(today.hours[2].start == midnight + 2 * 3600)
  }

  @Test func theDayTheClocksGoBackHas25HoursAndItsActivityIsClipped() throws {
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let calendar = try Self.berlin()
    // 2026-10-25: 03:00 CEST becomes 02:00 CET; asked two days later.
    let now = try Self.date(calendar, 10, 27, 8)
    let dayStart = try Self.date(calendar, 10, 25, 0).timeIntervalSince1970
    let dayEnd = try Self.date(calendar, 10, 26, 0).timeIntervalSince1970
    // The second 02:30 (CET) is an hour after the first: hour index 3 of the day.
    let secondHalfPastTwo = dayStart + 3 * 3600 + 1800
    let days = try details(
      steps: [secondHalfPastTwo: 12],
      activities: [
        // Running from the evening before until an hour into the next day, then nothing.
        .init(startDate: dayStart - 7200, timestamp: 1, flags: 4, confidence: 0),
        .init(startDate: dayEnd + 3600, timestamp: 2, flags: 0, confidence: 0),
      ], now: now, calendar: calendar)
    let day = try #require(days.first { $0.date == "2026-10-25" })
    #expect(day.start == dayStart)
    #expect(day.end == dayEnd)
    #expect(dayEnd - dayStart == 25 * 3600)
    #expect(day.hours.count == 25)
    #expect(day.hours.map(\.hour) == [0, 1, 2, 2] + Array(3..<24))
    #expect(day.hours[3].steps == 12)
    #expect(day.hours.map(\.steps).reduce(0, +) == 12)
    #expect(
      day.segments == [
        .init(start: dayStart, end: dayEnd, activities: ["running"], confidence: "low")
      ])
    // The next day: the run's last hour, then a stretch with no activity set, until now.
    let next = try #require(days.first { $0.date == "2026-10-26" })
    #expect(next.segments.map(\.activities) == [["running"], []])
    #expect(next.segments.last?.end == dayEnd + 86_400)
  }

  @Test func aMinuteCutByAnHourBoundaryCountsProRata() {
    // A made-up day beginning 30 s into a minute (an offset that is not whole minutes): the
    // minute at 3600 s lies half in the first hour, half in the second.
    var delta = HistoryBatch.StepDelta()
    delta.steps = 60
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(secondsFromGMT: 0)!
    let hours = DaemonDashboardHistory.hours(
      [3600: delta], from: 30, to: 30 + 7200, now: .infinity, calendar: calendar)
    #expect(hours.map(\.steps) == [30, 30])
    #expect(hours.map(\.start) == [30, 3630])
  }

  @Test func segmentsAreClippedToTheDayAndNowAndSkipEmptyStretches() {
    let changes: [HistoryBatch.ActivityChange] = [
      .init(startDate: 0, timestamp: 0, flags: 2 | 32, confidence: 1),
      // Two changes at one instant: the first lasts no time.
      .init(startDate: 50, timestamp: 1, flags: 8, confidence: 2),
      .init(startDate: 50, timestamp: 2, flags: 8 | 16, confidence: 2),
    ]
    let segments = DaemonDashboardHistory.segments(changes, from: 10, to: 200, now: 120)
    #expect(
      segments == [
        .init(start: 10, end: 50, activities: ["walking", "unknown"], confidence: "medium"),
        .init(start: 50, end: 120, activities: ["cycling", "automotive"], confidence: "high"),
      ])
  }
}

/// A day whose midnight does not exist: in Chile the clocks went from 00:00 to 01:00 on
/// 2026-09-06, so that day starts at 01:00; the days before it still start at their own midnight
/// (stepping back from 01:00 used to carry 01:00 into them, each losing its first hour).
@Suite struct DaemonDashboardDayStartsTests {
  @Test func theDaysBeforeADayWithoutMidnightStartAtTheirOwnMidnight() throws {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "America/Santiago"))
    let now = try #require(
      calendar.date(from: DateComponents(year: 2026, month: 9, day: 6, hour: 12)))
    let starts = DaemonDashboardHistory.dayStarts(now: now, calendar: calendar)
    #expect(starts.count == 7)
    let hours = starts.map { calendar.component(.hour, from: $0) }
    #expect(hours == [0, 0, 0, 0, 0, 0, 1], "local start hours \(hours)")
    let days = starts.map { calendar.component(.day, from: $0) }
    #expect(days == [31, 1, 2, 3, 4, 5, 6])
  }
}
