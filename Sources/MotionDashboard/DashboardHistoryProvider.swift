// SPDX-License-Identifier: Apache-2.0

/// The daemon's hook into the dashboard: when a provider is given, the page shows the history
/// panel (7 days of steps and activity, the recorder's extent, the connected clients) from
/// `GET /api/history`, and one day's detail from `GET /api/history/day`; without one both
/// endpoints answer 404 and the panel stays hidden.
public protocol DashboardHistoryProvider: Sendable {
  /// The history as of now.
  func history() async throws -> DashboardHistory

  /// One local day's hourly steps and activity timeline as of now, or `nil` when the provider
  /// cannot answer for that day (it is not one of the days ``history()`` lists, or the provider
  /// keeps no detail). `date` is `YYYY-MM-DD`; the server passes only real calendar dates, but
  /// a provider must still answer `nil` for any text it does not list.
  func dayDetail(_ date: String) async throws -> DashboardHistoryDayDetail?
}

extension DashboardHistoryProvider {
  /// No detail: a provider written before the drill-down (or one without per-hour data) keeps
  /// compiling, and the server answers 404 for every day.
  public func dayDetail(_ date: String) async throws -> DashboardHistoryDayDetail? { nil }
}

/// What the history panel shows. Encoded as JSON for `GET /api/history` (see docs/Dashboard.md).
public struct DashboardHistory: Codable, Sendable, Equatable {
  /// One day of pedometer and activity totals, oldest first (at most 7 are shown).
  public struct Day: Codable, Sendable, Equatable {
    /// The day, `YYYY-MM-DD` in local time.
    public var date: String
    public var steps: Int
    /// Seconds spent in each activity (`stationary`, `walking`, `running`, `cycling`,
    /// `automotive`).
    public var activitySeconds: [String: Double]

    public init(date: String, steps: Int, activitySeconds: [String: Double]) {
      self.date = date
      self.steps = steps
      self.activitySeconds = activitySeconds
    }
  }

  /// A process connected to the daemon.
  public struct Client: Codable, Sendable, Equatable {
    public var name: String
    public var processIdentifier: Int32?
    /// The rate it receives, Hz.
    public var rate: Double?

    public init(name: String, processIdentifier: Int32?, rate: Double?) {
      self.name = name
      self.processIdentifier = processIdentifier
      self.rate = rate
    }
  }

  public var days: [Day]
  /// The sensor recorder's stored extent (seconds since 1970), if it records.
  public var recorderStart: Double?
  public var recorderEnd: Double?
  public var clients: [Client]

  public init(days: [Day], recorderStart: Double?, recorderEnd: Double?, clients: [Client]) {
    self.days = days
    self.recorderStart = recorderStart
    self.recorderEnd = recorderEnd
    self.clients = clients
  }
}
