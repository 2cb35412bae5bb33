// SPDX-License-Identifier: Apache-2.0

/// The daemon's hook into the dashboard: when a provider is given, the page shows the history
/// panel (7 days of steps and activity, the recorder's extent, the connected clients) from
/// `GET /api/history`, and one day's detail from `GET /api/history/day`; without one both
/// endpoints answer 404 and the panel stays hidden.
///
/// A request in progress ends when the server stops, without waiting for the provider's answer
/// (which is then dropped). A provider must not block a thread of Swift concurrency's pool: the
/// server's stop needs one.
package protocol DashboardHistoryProvider: Sendable {
  /// The history as of now.
  func history() async throws -> DashboardHistory

  /// One local day's hourly steps and activity timeline as of now, or `nil` when the provider
  /// cannot answer for that day (it is not one of the days ``history()`` lists, or the provider
  /// keeps no detail). `date` is `YYYY-MM-DD`; the server passes only real calendar dates, but
  /// a provider must still answer `nil` for any text it does not list.
  func dayDetail(_ date: String) async throws -> DashboardHistoryDayDetail?
}

extension DashboardHistoryProvider {
  /// No detail: for a provider without per-hour data (the tests' ones), the server answers 404
  /// for every day.
  package func dayDetail(_ date: String) async throws -> DashboardHistoryDayDetail? { nil }
}

/// What the history panel shows. Encoded as JSON for `GET /api/history` (see docs/Dashboard.md).
package struct DashboardHistory: Codable, Sendable, Equatable {
  /// One day of pedometer and activity totals, oldest first (at most 7 are shown).
  package struct Day: Codable, Sendable, Equatable {
    /// The day, `YYYY-MM-DD` in local time.
    package var date: String
    package var steps: Int
    /// Seconds spent in each activity (`stationary`, `walking`, `running`, `cycling`,
    /// `automotive`).
    package var activitySeconds: [String: Double]

    package init(date: String, steps: Int, activitySeconds: [String: Double]) {
      self.date = date
      self.steps = steps
      self.activitySeconds = activitySeconds
    }
  }

  /// A process connected to the daemon.
  package struct Client: Codable, Sendable, Equatable {
    package var name: String
    package var processIdentifier: Int32?
    /// The rate it receives, Hz.
    package var rate: Double?

    package init(name: String, processIdentifier: Int32?, rate: Double?) {
      self.name = name
      self.processIdentifier = processIdentifier
      self.rate = rate
    }
  }

  package var days: [Day]
  /// The sensor recorder's stored extent (seconds since 1970), if it records.
  package var recorderStart: Double?
  package var recorderEnd: Double?
  package var clients: [Client]

  package init(days: [Day], recorderStart: Double?, recorderEnd: Double?, clients: [Client]) {
    self.days = days
    self.recorderStart = recorderStart
    self.recorderEnd = recorderEnd
    self.clients = clients
  }
}
