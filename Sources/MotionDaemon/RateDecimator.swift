// SPDX-License-Identifier: Apache-2.0

/// Picks the source samples one client subscription receives so that deliveries come every
/// `interval` seconds on average, judged by the samples' own timestamps.
///
/// Same rule as `CMMotionManager`'s in-process decimation: a sample at time t is due when t ≥
/// nextDue − half a source period; `nextDue` then advances by exactly `interval`, so the average
/// spacing stays exact when the interval is not a multiple of the source period. After a gap the
/// schedule restarts instead of bursting.
struct RateDecimator: Sendable {
  /// Seconds between deliveries; 0 delivers every sample.
  var interval: Double
  private var nextDue: Double?
  private var lastTimestamp: Double?

  init(interval: Double) {
    self.interval = interval
  }

  mutating func accept(_ timestamp: Double) -> Bool {
    guard interval > 0 else { return true }
    var sourcePeriod = 0.0
    if let last = lastTimestamp, timestamp > last { sourcePeriod = timestamp - last }
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
