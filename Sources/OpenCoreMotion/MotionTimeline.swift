// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Maps a source's timestamps (s, its own clock: boot time for live hardware, the recording's or
/// the scenario's clock otherwise) to wall-clock dates, for the APIs that speak in `Date`s
/// (pedometer, activity, sensor recorder).
///
/// The in-process history anchors it at the first sample it sees: that sample's timestamp is
/// "now". For live hardware this agrees with the boot clock to within the delivery latency; for a
/// simulation or recording played in real time it makes the data happen now.
package struct MotionTimeline: Sendable, Equatable {
  /// The date of ``referenceTimestamp``.
  package var referenceDate: Date
  /// A source timestamp, s.
  package var referenceTimestamp: Double

  package init(referenceDate: Date, referenceTimestamp: Double) {
    self.referenceDate = referenceDate
    self.referenceTimestamp = referenceTimestamp
  }

  /// The date of the source timestamp `timestamp` (s).
  package func date(forTimestamp timestamp: Double) -> Date {
    referenceDate.addingTimeInterval(timestamp - referenceTimestamp)
  }

  /// The source timestamp (s) of `date`.
  package func timestamp(for date: Date) -> Double {
    referenceTimestamp + date.timeIntervalSince(referenceDate)
  }
}
