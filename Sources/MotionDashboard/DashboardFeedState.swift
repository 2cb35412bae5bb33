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
  /// Whether a Foxglove client subscribes to the raw gyroscope (the hub sets it at every
  /// broadcast). Pages read the rotation rate from device motion, so without device motion or
  /// such a client no raw gyroscope rows are made.
  package var rawGyroscopeRequested = false
  /// Seconds between display rows (1 / the page's rate).
  package var displayInterval: Double
  /// Which samples become display rows, per stream (by the samples' own timestamps).
  package var accelerometerRows: UpdateDecimator
  package var gyroscopeRows: UpdateDecimator
  package var magnetometerRows: UpdateDecimator
  package var motionRows: UpdateDecimator

  /// A state for rows every `displayInterval` seconds from a source whose samples come every
  /// `sourcePeriod` seconds (until the samples show their real spacing).
  package init(displayInterval: Double = 0.01, sourcePeriod: Double = 0.01) {
    self.displayInterval = displayInterval
    accelerometerRows = UpdateDecimator(nominalSourcePeriod: sourcePeriod)
    gyroscopeRows = UpdateDecimator(nominalSourcePeriod: sourcePeriod)
    magnetometerRows = UpdateDecimator(nominalSourcePeriod: sourcePeriod)
    motionRows = UpdateDecimator(nominalSourcePeriod: sourcePeriod)
  }

  /// Records that a row arrived now (monotonic s), for the latency figure.
  package mutating func noteArrival(_ now: Double) {
    if oldestArrival == nil { oldestArrival = now }
  }
}

/// Monotonic seconds, for latency measurements.
package func monotonicSeconds() -> Double {
  Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
