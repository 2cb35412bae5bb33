// SPDX-License-Identifier: Apache-2.0

import Foundation
import OpenCoreMotion

/// What a ``DashboardFeed`` has collected and measured; guarded by the feed's lock.
package struct DashboardFeedState: Sendable {
  package var batch = DashboardBatch()
  package var pedometer = PedometerAdapter()
  package var orientation = "unknown"
  package var health: [String: StreamHealthMeter] = [:]
  /// Monotonic time (s) when the oldest row of ``batch`` arrived, for the server-side latency.
  package var oldestArrival: Double?
  /// The longest time a row waited between arriving and going out in the last frame, s.
  package var lastBatchLatency = 0.0
  /// Whether the source has ended.
  package var finished = false
  /// The latest failure or error message from the source or the motion manager.
  package var problem: String?
  /// Seconds between display rows (1 / the page's rate).
  package var displayInterval = 0.01
  /// Which samples become display rows, per stream (by the samples' own timestamps).
  package var accelerometerRows = UpdateDecimator(nominalSourcePeriod: 0.01)
  package var gyroscopeRows = UpdateDecimator(nominalSourcePeriod: 0.01)
  package var magnetometerRows = UpdateDecimator(nominalSourcePeriod: 0.01)
  package var motionRows = UpdateDecimator(nominalSourcePeriod: 0.01)

  package init() {}

  /// Records that a row arrived now (monotonic s), for the latency figure.
  package mutating func noteArrival(_ now: Double) {
    if oldestArrival == nil { oldestArrival = now }
  }
}

/// Monotonic seconds, for latency measurements.
package func monotonicSeconds() -> Double {
  Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
