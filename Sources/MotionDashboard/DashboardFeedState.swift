// SPDX-License-Identifier: Apache-2.0

import Foundation
import OpenCoreMotion

/// What a ``DashboardFeed`` has collected and measured; guarded by the feed's lock.
package struct DashboardFeedState: Sendable {
  package var batch = DashboardBatch()
  package var pedometer = PedometerAdapter()
  package var orientation = "unknown"
  package var health = DashboardSensorHealth()
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
  /// Seconds of collecting between frame requests (the hub sets it: a frame period while pages
  /// are connected, longer without them); infinite until the hub asks for requests.
  package var frameRequestPeriod = Double.infinity
  /// What asks the hub for a frame (the hub's, set with the period).
  package var requestFrame: (@Sendable () -> Void)?
  /// Whether a frame may be requested: cleared by a request, set again when the batch is taken,
  /// so that a request the event loop has not served yet is not repeated.
  package var frameRequestArmed = true
  /// Monotonic time (s) from which the next frame request is due.
  package var nextFrameRequest = -Double.infinity

  /// A state for rows every `displayInterval` seconds from a source whose samples come every
  /// `sourcePeriod` seconds (until the samples show their real spacing).
  package init(displayInterval: Double = 0.01, sourcePeriod: Double = 0.01) {
    self.displayInterval = displayInterval
    accelerometerRows = UpdateDecimator(nominalSourcePeriod: sourcePeriod)
    gyroscopeRows = UpdateDecimator(nominalSourcePeriod: sourcePeriod)
    magnetometerRows = UpdateDecimator(nominalSourcePeriod: sourcePeriod)
    motionRows = UpdateDecimator(nominalSourcePeriod: sourcePeriod)
  }

  /// The frame request due now (monotonic s), if any, for the caller to run after releasing the
  /// lock. Requests are due every ``frameRequestPeriod`` on a schedule of their own rather than a
  /// period after the last one: samples arrive on their own grid (every 10 ms at 100 Hz), and
  /// waiting a full period after a request that came late would make every frame late (a 33 ms
  /// period gave a frame every 40 ms). None is due while the previous frame's batch has not been
  /// taken; after a pause, the schedule starts again from now. A caller that is only the
  /// fallback (the raw samples' handler, while device motion should make the requests) passes a
  /// `grace` of its own, s, so that it asks only when the requests are that overdue.
  package mutating func dueFrameRequest(now: Double, grace: Double = 0) -> (@Sendable () -> Void)? {
    guard frameRequestArmed, now >= nextFrameRequest + grace, let requestFrame else { return nil }
    frameRequestArmed = false
    nextFrameRequest += frameRequestPeriod
    if nextFrameRequest <= now { nextFrameRequest = now + frameRequestPeriod }
    return requestFrame
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
