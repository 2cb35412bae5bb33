// SPDX-License-Identifier: Apache-2.0

/// Notices when a detector's input starts a new timeline: a timestamp earlier than the latest one
/// by more than ``tolerance``.
///
/// Upstream stages pass such a backward jump through on purpose (the attitude estimator and the
/// update decimator treat it as a clock that restarted lower, e.g. a replay the daemon restarted),
/// so `CMDeviceMotion.timestamp`, and with it every ``MotionInput``, can start again near 0 after
/// an hour. A detector that kept comparing against times from the old timeline ("the last tap was
/// at 3600 s", "quiet until 3600.2 s") would refuse or never finish anything until the new clock
/// caught up, up to an hour later; on a new timeline the detectors forget their timing state
/// instead (their parameters stay). The rule and the tolerance are the ones the other detectors
/// use (`RelativeAltitudeFilter.timelineTolerance`, `AttitudeEstimator`'s `newTimeline`).
struct TimelineWatch: Sendable, Hashable {
  /// How much earlier than the latest timestamp one may be before it starts a new timeline,
  /// seconds: far longer than the ordering jitter of a sensor stream (samples batched a little out
  /// of order) and than any of the detectors' timings, so an out-of-order sample is never taken
  /// for a new timeline; short enough that a detector recovers at once after a real restart.
  static let tolerance = 1.0

  /// The latest timestamp seen on the current timeline, or −∞ before the first.
  private(set) var latest = -Double.infinity

  /// Creates a watch that has seen no timestamp.
  init() {}

  /// Whether `timestamp` is earlier than `reference` by more than ``tolerance``. False for a NaN.
  static func isNewTimeline(_ timestamp: Double, after reference: Double) -> Bool {
    timestamp < reference - tolerance
  }

  /// Notes `timestamp` and returns whether it starts a new timeline (which it then becomes the
  /// latest time of).
  mutating func startsNewTimeline(at timestamp: Double) -> Bool {
    let isNew = Self.isNewTimeline(timestamp, after: latest)
    latest = isNew ? timestamp : Swift.max(latest, timestamp)
    return isNew
  }

  /// Forgets the timestamps seen.
  mutating func reset() {
    latest = -.infinity
  }
}
