// SPDX-License-Identifier: Apache-2.0

/// One local day of the history in detail, for the history panel's drill-down into a day
/// (`GET /api/history/day?date=YYYY-MM-DD`, see docs/Dashboard.md): the steps of each local hour
/// and the activity timeline. Times are seconds since 1970, so the page places them without
/// knowing the provider's time zone (which may not be the browser's).
package struct DashboardHistoryDayDetail: Codable, Sendable, Equatable {
  /// One local hour of the day and the steps counted in it.
  package struct Hour: Codable, Sendable, Equatable {
    /// When the hour begins, seconds since 1970.
    package var start: Double
    /// The local clock hour it begins at (0–23), as the provider's time zone reads it: on the
    /// day the clocks go forward one hour is missing, on the day they go back one appears twice.
    package var hour: Int
    package var steps: Int

    package init(start: Double, hour: Int, steps: Int) {
      self.start = start
      self.hour = hour
      self.steps = steps
    }
  }

  /// A stretch of the day with one set of activities: from one activity change to the next
  /// (clipped to the day; today's last one ends now).
  package struct Segment: Codable, Sendable, Equatable {
    /// Seconds since 1970.
    package var start: Double
    /// Seconds since 1970.
    package var end: Double
    /// The activities set (`stationary`, `walking`, `running`, `cycling`, `automotive`,
    /// `unknown`), in that order: several may be set at once (stationary in a car is
    /// `stationary` and `automotive`), and none when the classifier set none.
    package var activities: [String]
    /// `low`, `medium` or `high`; `nil` when the provider does not know it.
    package var confidence: String?

    package init(start: Double, end: Double, activities: [String], confidence: String?) {
      self.start = start
      self.end = end
      self.activities = activities
      self.confidence = confidence
    }
  }

  /// The day, `YYYY-MM-DD` in local time (as ``DashboardHistory/Day/date``).
  package var date: String
  /// The day's local midnight, seconds since 1970.
  package var start: Double
  /// The next day's local midnight, seconds since 1970: 23 or 25 hours after `start` on a
  /// daylight-saving change day. For today, later than now.
  package var end: Double
  /// Every hour of the day, in order, from `start` to `end` (24 of them, or 23 or 25 on a
  /// daylight-saving change day); today's hours after now have no steps.
  package var hours: [Hour]
  /// The activity timeline, in order, not overlapping; the day may begin before the first one
  /// (nothing was recorded).
  package var segments: [Segment]

  package init(date: String, start: Double, end: Double, hours: [Hour], segments: [Segment]) {
    self.date = date
    self.start = start
    self.end = end
    self.hours = hours
    self.segments = segments
  }
}
