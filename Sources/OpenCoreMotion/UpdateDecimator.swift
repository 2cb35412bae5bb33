// SPDX-License-Identifier: Apache-2.0

/// Picks which source samples to deliver so that deliveries come every `interval` seconds on
/// average, judged by the samples' own timestamps (never by the wall clock).
///
/// A sample at time t is delivered when `t ≥ nextDue − sourcePeriod/2`; then `nextDue += interval`.
/// Allowing half a source period of earliness picks the sample nearest to each due time, and
/// advancing `nextDue` by exactly `interval` (not from the delivered sample's time) keeps the
/// average spacing exact when the interval is not a multiple of the source period. After a gap
/// longer than an interval the schedule restarts at the next sample instead of bursting to catch
/// up; so it does when time jumps back by more than an interval (a new timeline: a replay started
/// again by a restarted motion daemon), instead of waiting for the new timeline to reach the old
/// one's due time.
package struct UpdateDecimator: Sendable {
  /// The nominal time between source samples, s; used until two samples have been seen.
  package var nominalSourcePeriod: Double
  private var nextDue: Double?
  private var lastTimestamp: Double?

  package init(nominalSourcePeriod: Double) {
    self.nominalSourcePeriod = nominalSourcePeriod
  }

  /// Whether the sample at `timestamp` (seconds) is due for delivery at `interval` seconds.
  package mutating func accept(_ timestamp: Double, interval: Double) -> Bool {
    var sourcePeriod = nominalSourcePeriod
    if let last = lastTimestamp {
      if timestamp > last { sourcePeriod = timestamp - last }
      if timestamp < last - interval { nextDue = nil }
    }
    lastTimestamp = timestamp
    guard let due = nextDue else {
      nextDue = timestamp + interval
      return true
    }
    // 1 ns of slack absorbs rounding in timestamps that sit exactly half a period early.
    guard timestamp >= due - 0.5 * sourcePeriod - 1e-9 else { return false }
    nextDue = timestamp - due > interval ? timestamp + interval : due + interval
    return true
  }
}
