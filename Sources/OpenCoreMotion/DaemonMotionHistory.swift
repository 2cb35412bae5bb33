// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import MotionDetectors
import MotionMath
import MotionSensors

/// The history of `CMPedometer`, `CMMotionActivityManager` and `CMSensorRecorder` when the process
/// reads its sensors from the motion daemon (`COREMOTION_SOURCE=daemon`, or the daemon's socket
/// found at start-up): queries answer from the daemon's store, so they cover the seven days the
/// daemon kept while no app ran, and recording requests go to the daemon, which records while this
/// process is gone.
///
/// Live updates (pedometer, activity, altitude as they happen) come from the same detectors run in
/// this process on the daemon's samples (`live`), so they start at once and need no second
/// protocol. When a query to the daemon fails (the daemon went away), the live history answers
/// for what this process observed, as without a daemon.
package final class DaemonMotionHistory: MotionHistoryBackend {
  private let client: DaemonClient
  private let live: InProcessMotionHistory
  /// The longest a query waits for the daemon, s.
  private let queryTimeout: Double

  package init(client: DaemonClient, live: InProcessMotionHistory, queryTimeout: Double = 5) {
    self.client = client
    self.live = live
    self.queryTimeout = queryTimeout
  }

  package var name: String { "daemon history (\(live.name))" }
  package var availableSensors: SensorSet { live.availableSensors }
  package var countsFloors: Bool { live.countsFloors }
  package var currentActivity: ActivityRecord? { live.currentActivity }

  package func pedometerSummary(from start: Date, to end: Date) -> PedometerSummary {
    let liveSummary = live.pedometerSummary(from: start, to: end)
    guard let totals = wait({ try await self.client.pedometerTotals(from: start, to: end) }),
      totals.steps.isFinite, totals.distance.isFinite
    else { return liveSummary }
    // The daemon keeps per-minute buckets (partial minutes pro rata): whole steps and floors.
    func count(_ value: Double) -> Int { value.isFinite ? Int(Swift.min(Swift.max(value.rounded(), 0), 1e12)) : 0 }
    var summary = liveSummary
    summary.numberOfSteps = Swift.max(count(totals.steps), liveSummary.numberOfSteps)
    summary.distance = Swift.max(totals.distance, liveSummary.distance)
    if countsFloors {
      summary.floorsAscended = Swift.max(count(totals.floorsAscended), liveSummary.floorsAscended ?? 0)
      summary.floorsDescended = Swift.max(count(totals.floorsDescended), liveSummary.floorsDescended ?? 0)
    }
    if totals.activeTime.isFinite { summary.activeDuration = Swift.max(totals.activeTime, liveSummary.activeDuration) }
    return summary
  }

  package func activities(from start: Date, to end: Date) -> [ActivityRecord] {
    guard let segments = wait({ try await self.client.activities(from: start, to: end) }), !segments.isEmpty else {
      return live.activities(from: start, to: end)
    }
    return segments.map { segment in
      let confidence = ActivityEstimate.Confidence(rawValue: Swift.min(Swift.max(segment.confidence, 0), 2)) ?? .low
      let estimate = ActivityEstimate(
        stationary: segment.stationary, walking: segment.walking, running: segment.running,
        cycling: segment.cycling, automotive: segment.automotive, unknown: segment.unknown,
        confidence: confidence, startTime: segment.timestamp)
      return ActivityRecord(estimate: estimate, date: segment.startDate, timestamp: segment.timestamp)
    }
  }

  package func altitudes(from start: Date, to end: Date) -> [AltitudeRecord] {
    // The daemon keeps no altitude history; the altimeter only reports live values anyway.
    live.altitudes(from: start, to: end)
  }

  package func recordAccelerometer(forDuration duration: TimeInterval) {
    // The daemon records while this process is gone; the live history records too, so that a
    // query still answers if the daemon disappears.
    live.recordAccelerometer(forDuration: duration)
    let client = self.client
    Task { _ = try? await client.recordAccelerometer(duration: duration) }
  }

  package func recordedAccelerometer(from start: Date, to end: Date) -> [AccelerometerRecord] {
    guard let samples = wait({ try await self.client.recordedAccelerometer(from: start, to: end) }), !samples.isEmpty
    else { return live.recordedAccelerometer(from: start, to: end) }
    return samples.map { sample in
      AccelerometerRecord(
        identifier: sample.identifier, timestamp: sample.timestamp, date: sample.startDate,
        acceleration: Units.coreMotionAcceleration(fromSpecificForce: sample.specificForce))
    }
  }

  package func subscribe(_ handler: @escaping @Sendable (MotionHistoryEvent) -> Void) -> SourceSubscription {
    live.subscribe(handler)
  }

  /// Runs `query` against the daemon and waits for it (the history API is synchronous and is called
  /// off the main thread by the `CM*` classes), at most ``queryTimeout`` seconds; `nil` on failure.
  private func wait<Value: Sendable>(_ query: @escaping @Sendable () async throws -> Value) -> Value? {
    let result = Locked<Value?>(nil)
    let done = DispatchSemaphore(value: 0)
    let task = Task {
      if let value = try? await query() { result.withLock { $0 = value } }
      done.signal()
    }
    if done.wait(timeout: .now() + queryTimeout) == .timedOut {
      task.cancel()
      return nil
    }
    return result.withLock { $0 }
  }
}
