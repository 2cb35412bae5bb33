// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDashboard

extension DaemonDashboardHistory {
  /// `CMMotionActivityConfidence`'s names by raw value (`activity_change.confidence`).
  static let confidenceNames = ["low", "medium", "high"]

  /// The detail of each of the last 7 local days, oldest first, today up to `now`: steps per
  /// local hour and the activity timeline, by the same rules as ``days(store:now:calendar:)``
  /// (the current minute counts whole; a change lasts until the next one, the last until `now`).
  /// One read of the store for all seven.
  static func dayDetails(
    store: HistoryStore, now: Date, calendar: Calendar
  ) throws -> [DashboardHistoryDayDetail] {
    let starts = dayStarts(now: now, calendar: calendar)
    guard let first = starts.first, let last = starts.last else { return [] }
    let from = first.timeIntervalSince1970
    let end = now.timeIntervalSince1970
    // Today ends at the next local midnight (a day of 23 or 25 hours around a DST change).
    let tomorrow =
      calendar.date(byAdding: .day, value: 1, to: last)?.timeIntervalSince1970
      ?? last.timeIntervalSince1970 + 86_400
    let minutes = try store.stepMinutes(from: from, to: end)
    let changes = try store.activities(from: from, to: end)
    let formatter = dayFormatter(calendar: calendar)
    return starts.enumerated().map { index, start in
      let dayStart = start.timeIntervalSince1970
      let dayEnd = index + 1 < starts.count ? starts[index + 1].timeIntervalSince1970 : tomorrow
      // The minutes that can overlap this day, so each hour's sum looks at one day's rows only.
      let dayMinutes = minutes.filter { Double($0.key) < dayEnd && Double($0.key) + 60 > dayStart }
      return DashboardHistoryDayDetail(
        date: formatter.string(from: start), start: dayStart, end: dayEnd,
        hours: hours(dayMinutes, from: dayStart, to: dayEnd, now: end, calendar: calendar),
        segments: segments(changes, from: dayStart, to: dayEnd, now: end))
    }
  }

  /// The hours of [from, to) (a local day), each with its steps: one hour every 3600 s of
  /// elapsed time from `from`, so a DST change day has 23 or 25 of them (and a zone that shifts
  /// by half an hour ends the day with a shorter one). A minute row counts as in
  /// ``HistoryBatch/totals(of:from:to:now:)``: whole in its hour, the current one up to `now`,
  /// and pro rata only if an hour boundary cut it (a zone offset that is not whole minutes).
  static func hours(
    _ minutes: [Int64: HistoryBatch.StepDelta], from: Double, to: Double, now: Double,
    calendar: Calendar
  ) -> [DashboardHistoryDayDetail.Hour] {
    var hours: [DashboardHistoryDayDetail.Hour] = []
    var start = from
    // At most 26: a local day is never longer than 25 hours (the bound guards a calendar that
    // answers something odd, so the loop cannot run away).
    while start < to, hours.count < 26 {
      let hourEnd = min(start + 3600, to)
      let steps = HistoryBatch.totals(of: minutes, from: start, to: hourEnd, now: now).steps
      hours.append(
        .init(
          start: start,
          hour: calendar.component(.hour, from: Date(timeIntervalSince1970: start)),
          steps: Int(clamping: steps)))
      start = hourEnd
    }
    return hours
  }

  /// The activity timeline of [from, to]: each change from its start to the next change's (the
  /// last to `now`), clipped to the day and to `now`; empty stretches (two changes at one
  /// instant, or a change after `now` from a clock step back) are left out.
  static func segments(
    _ changes: [HistoryBatch.ActivityChange], from: Double, to: Double, now: Double
  ) -> [DashboardHistoryDayDetail.Segment] {
    var segments: [DashboardHistoryDayDetail.Segment] = []
    for (index, change) in changes.enumerated() {
      let changeEnd = index + 1 < changes.count ? changes[index + 1].startDate : now
      let start = max(change.startDate, from)
      let end = min(changeEnd, to, now)
      guard end > start else { continue }
      let names = activities(of: change.flags)
      let confidence =
        confidenceNames.indices.contains(Int(change.confidence))
        ? confidenceNames[Int(change.confidence)] : nil
      segments.append(
        .init(start: start, end: end, activities: names, confidence: confidence))
    }
    return segments
  }
}
