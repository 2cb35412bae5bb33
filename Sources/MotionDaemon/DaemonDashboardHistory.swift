// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDashboard

/// The dashboard's history panel from the daemon: steps and time per activity for each of the last
/// 7 local days, the recorded accelerometer's extent, and the connected client processes.
///
/// While history is denied or unavailable the days and the extent are empty; the clients are
/// still listed. One day's detail (``dayDetail(_:)``) is then `nil`, as for a day outside the
/// seven: no day is listed, so none is answerable.
struct DaemonDashboardHistory: DashboardHistoryProvider {
  let daemon: MotionDaemon
  /// Reads the store on a thread of its own, once for every page that asks meanwhile.
  private let reader = SharedRead<DashboardHistory>(label: "motiond-dashboard-history")
  /// The same for the days' detail: one read answers for all seven days, so pages that ask for
  /// different days meanwhile can share it (`nil`: history denied or unavailable).
  private let detailReader = SharedRead<[DashboardHistoryDayDetail]?>(
    label: "motiond-dashboard-history-day")

  init(daemon: MotionDaemon) {
    self.daemon = daemon
  }

  /// Activity names by bit of `activity_change.flags` (``HistoryService/flags(_:)``).
  static let activityNames = [
    "stationary", "walking", "running", "cycling", "automotive", "unknown",
  ]

  /// The activities set in `flags`, in ``activityNames`` order (several at once for a car at a
  /// red light; none when no bit is set).
  static func activities(of flags: Int64) -> [String] {
    activityNames.enumerated().compactMap { bit, name in flags & (1 << Int64(bit)) != 0 ? name : nil
    }
  }

  /// Reading the store blocks (SQLite, and at start-up the first open of a large store, which
  /// the daemon's queries wait for), so it runs on a thread of its own rather than on one of
  /// Swift concurrency's shared threads, which the dashboard's connections run on. Every page
  /// polls; pages that ask while a read runs share its answer, so they cannot queue reads faster
  /// than the store answers.
  func history() async throws -> DashboardHistory {
    try await reader.read { [daemon] in try Self.read(daemon) }
  }

  /// The detail of `date` (`YYYY-MM-DD`) if it is one of the last 7 local days, read as
  /// ``history()`` reads (off the shared threads, shared with the pages that ask meanwhile).
  func dayDetail(_ date: String) async throws -> DashboardHistoryDayDetail? {
    let details = try await detailReader.read { [daemon] in
      let now = Date()
      let read = daemon.history.withStoreForQuery { store in
        Result { try Self.dayDetails(store: store, now: now, calendar: Calendar.current) }
      }
      guard case .success(let details) = read else { return nil }
      return try details.get()
    }
    return details?.first { $0.date == date }
  }

  private static func read(_ daemon: MotionDaemon) throws -> DashboardHistory {
    let status = daemon.status()
    let clients = status.clients.map { client in
      let rates = client.subscriptions.map(\.rateHz).filter { $0 > 0 }
      return DashboardHistory.Client(
        name: client.name, processIdentifier: Int32(clamping: client.pid), rate: rates.max())
    }
    let now = Date()
    let read = daemon.history.withStoreForQuery { store in
      Result {
        let days = try Self.days(store: store, now: now, calendar: Calendar.current)
        return (days, try store.recordedExtent())
      }
    }
    guard case .success(let stored) = read else {
      return DashboardHistory(days: [], recorderStart: nil, recorderEnd: nil, clients: clients)
    }
    let (days, extent) = try stored.get()
    return DashboardHistory(
      days: days, recorderStart: extent?.start, recorderEnd: extent?.end, clients: clients)
  }

  /// The last 7 local days, oldest first, today up to `now`.
  static func days(
    store: HistoryStore, now: Date, calendar: Calendar
  ) throws -> [DashboardHistory.Day] {
    let starts = dayStarts(now: now, calendar: calendar)
    guard let first = starts.first else { return [] }
    let end = now.timeIntervalSince1970
    let changes = try store.activities(from: first.timeIntervalSince1970, to: end)
    let formatter = dayFormatter(calendar: calendar)
    return try starts.enumerated().map { index, start in
      let from = start.timeIntervalSince1970
      let to = index + 1 < starts.count ? starts[index + 1].timeIntervalSince1970 : end
      // The current minute counts whole up to now (not pro rata of its 60 s, which would show
      // 92 of the 100 steps taken in its first 50 s).
      let totals = try store.pedometerTotals(from: from, to: to, now: end)
      return DashboardHistory.Day(
        date: formatter.string(from: start), steps: Int(totals.steps),
        activitySeconds: activitySeconds(changes, from: from, to: to, now: end))
    }
  }

  /// The local midnights of the last 7 days, oldest first (today's last).
  static func dayStarts(now: Date, calendar: Calendar) -> [Date] {
    let today = calendar.startOfDay(for: now)
    // Each day's own start: where a day's midnight does not exist (clocks forward at 00:00, as
    // in Chile), its start is 01:00, and stepping back from it would carry 01:00 into the days
    // before.
    return (0..<7).reversed().compactMap {
      calendar.date(byAdding: .day, value: -$0, to: today).map { calendar.startOfDay(for: $0) }
    }
  }

  /// Formats a day as Gregorian `YYYY-MM-DD` in `calendar`'s time zone, whatever the user's
  /// locale and calendar (a Buddhist year would not be a date the page can ask for).
  static func dayFormatter(calendar: Calendar) -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    var gregorian = Calendar(identifier: .gregorian)
    gregorian.timeZone = calendar.timeZone
    formatter.calendar = gregorian
    formatter.timeZone = calendar.timeZone
    formatter.dateFormat = "yyyy-MM-dd"
    return formatter
  }

  /// Seconds in [from, to] spent in each activity: a change lasts until the next one (the last
  /// until `now`). A change with several activities set (stationary in a car) counts for each.
  static func activitySeconds(
    _ changes: [HistoryBatch.ActivityChange], from: Double, to: Double, now: Double
  ) -> [String: Double] {
    var seconds: [String: Double] = [:]
    for (index, change) in changes.enumerated() {
      let changeEnd = index + 1 < changes.count ? changes[index + 1].startDate : now
      let overlap = min(changeEnd, to) - max(change.startDate, from)
      guard overlap > 0 else { continue }
      for name in activities(of: change.flags) {
        seconds[name, default: 0] += overlap
      }
    }
    return seconds
  }
}
