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
/// Live events (steps, pauses, activity, altitude as they happen) come from the same detectors run
/// in this process on the daemon's samples (`live`), so they start at once. The totals of live
/// pedometer updates from a past date are the daemon's: its stored count from that date (steps
/// taken while no app ran included) plus its live step counter since (see
/// ``pedometerUpdates(from:)``). When a query to the daemon fails (the daemon went away), the live
/// history answers for what this process observed, as without a daemon.
package final class DaemonMotionHistory: MotionHistoryBackend {
  private let client: DaemonClient
  private let live: InProcessMotionHistory
  /// The longest a query waits for the daemon, s.
  private let queryTimeout: Double
  /// The shortest time between two background questions for live pedometer totals, s (after a
  /// reconnection, or while the daemon refuses the question: a start date still in the future).
  private let refetchSpacing: Double
  /// The longest the start of pedometer updates waits for the daemon's totals on the caller's
  /// thread, s (a daemon on the same machine answers within milliseconds).
  private let startWait: Double

  /// The daemon's live pedometer counter: the latest reading, and a connection epoch that changes
  /// whenever the connection drops (a restarted daemon counts from zero again).
  private let counter = Locked<(epoch: UInt64, reading: DaemonPedometerReading?)>((0, nil))
  private let counterSubscription = Locked<SourceSubscription?>(nil)
  /// Where requests that may have to connect first (which blocks) are sent from, so that no
  /// caller waits for the connection. A queue of its own: on Linux the global queues share their
  /// threads with Swift concurrency's pool, which the app may keep busy.
  private let requests = DispatchQueue(label: "OpenCoreMotion.daemon-history.requests")

  package init(
    client: DaemonClient, live: InProcessMotionHistory, queryTimeout: Double = 5,
    refetchSpacing: Double = 1, startWait: Double = 0.5
  ) {
    self.client = client
    self.live = live
    self.queryTimeout = queryTimeout
    self.refetchSpacing = refetchSpacing
    self.startWait = startWait
  }

  package var name: String { "daemon history (\(live.name))" }
  package var availableSensors: SensorSet { live.availableSensors }
  package var countsFloors: Bool { live.countsFloors }
  package var currentActivity: ActivityRecord? { live.currentActivity }
  package var isHistoryAuthorized: Bool { client.isHistoryAuthorized }

  package func pedometerSummary(from start: Date, to end: Date) -> PedometerSummary {
    let liveSummary = live.pedometerSummary(from: start, to: end)
    guard let totals = wait(for: .pedometerTotals(from: start, to: end)),
      totals.steps.isFinite, totals.distance.isFinite
    else { return liveSummary }
    // The daemon keeps per-minute buckets (partial minutes pro rata): whole steps and floors.
    func count(_ value: Double) -> Int {
      value.isFinite ? Int(Swift.min(Swift.max(value.rounded(), 0), 1e12)) : 0
    }
    var summary = liveSummary
    summary.numberOfSteps = Swift.max(count(totals.steps), liveSummary.numberOfSteps)
    summary.distance = Swift.max(totals.distance, liveSummary.distance)
    if countsFloors {
      summary.floorsAscended = Swift.max(
        count(totals.floorsAscended), liveSummary.floorsAscended ?? 0)
      summary.floorsDescended = Swift.max(
        count(totals.floorsDescended), liveSummary.floorsDescended ?? 0)
    }
    if totals.activeTime.isFinite {
      summary.activeDuration = Swift.max(totals.activeTime, liveSummary.activeDuration)
    }
    return summary
  }

  /// Live totals from `start`: the daemon's totals from `start` to now, taken together with its
  /// live counter at that instant, plus what the counter has counted since. Both come from the
  /// daemon's one step detector, so no step is counted twice or lost at the junction, and steps
  /// taken before this process started (while no app ran) are in. After a reconnection (the
  /// counter restarts with the daemon) the totals are asked again. Without the daemon, the
  /// process's own history answers.
  ///
  /// The returned function runs in the live event path, which on the daemon is the connection's
  /// reader thread: the thread that would read the answer. So answers arrive in the background:
  /// the first is asked at once and waited for on the caller's thread for at most
  /// ``startWait`` (so that the opening update has the steps taken before it; a daemon that does
  /// not answer by then, hung or overloaded, does not hold the app's thread, and updates carry its
  /// totals once they arrive); later ones are asked at most once a ``refetchSpacing``. Until one
  /// arrives the totals stay where they were (an update never goes back).
  package func pedometerUpdates(from start: Date) -> @Sendable (Date) -> PedometerSummary {
    startCounting()
    let client = self.client
    let baseline = Locked(
      PedometerBaselineState(baseline: nil, isFetching: true, lastAttempt: Date()))
    // Asks for the totals from `start` to now and hands them to `completion` (`nil` when there
    // are none), on the connection's reader thread; never blocks (see `DaemonClient.ask`).
    let fetch:
      @Sendable (
        _ connectTimeout: Double?, _ completion: @escaping @Sendable (PedometerBaseline?) -> Void
      ) -> Void = {
        [counter] connectTimeout, completion in
        let epoch = counter.withLock { $0.epoch }
        client.ask(.pedometerTotals(from: start, to: Date()), connectingFor: connectTimeout) {
          result in
          guard case .success(let totals) = result, let counters = totals.counters,
            totals.steps.isFinite, totals.distance.isFinite
          else { return completion(nil) }
          completion(PedometerBaseline(epoch: epoch, totals: totals, counters: counters))
        }
      }
    // The first question is asked from a queue of the history's own (connecting blocks), and
    // waited for here for at most `startWait`.
    let firstAnswer = NSCondition()
    let connectTimeout = queryTimeout
    requests.async {
      fetch(connectTimeout) { answer in
        baseline.withLock { state in
          state.isFetching = false
          if let answer, state.baseline == nil { state.baseline = answer }
        }
        firstAnswer.withLock { firstAnswer.broadcast() }
      }
    }
    let deadline = Date(timeIntervalSinceNow: Swift.min(startWait, queryTimeout))
    firstAnswer.withLock {
      while baseline.withLock({ $0.isFetching }) {
        if !firstAnswer.wait(until: deadline) { break }
      }
    }
    let refetchSpacing = self.refetchSpacing
    return { [self] end in
      let (epoch, latest) = counter.withLock { ($0.epoch, $0.reading) }
      let (current, refetch) = baseline.withLock { state -> (PedometerBaseline?, Bool) in
        guard state.baseline?.epoch != epoch, !state.isFetching,
          Date().timeIntervalSince(state.lastAttempt) >= refetchSpacing
            || state.lastAttempt > Date()
        else { return (state.baseline, false) }
        state.isFetching = true
        state.lastAttempt = Date()
        return (state.baseline, true)
      }
      if refetch {
        // On the reader thread: no connecting here (the client reconnects by itself; the next
        // update after `refetchSpacing` asks again).
        fetch(nil) { answer in
          baseline.withLock { state in
            state.isFetching = false
            if let answer { state.baseline = answer }
          }
        }
      }
      let liveSummary = live.pedometerSummary(from: start, to: end)
      // Without an answer yet, the process's own count. A baseline of an earlier connection does
      // not match the restarted counter's readings: its totals stand alone until the new answer
      // arrives. They are the daemon's count at the start of updates, less than what the updates
      // since have shown, so what was shown is a floor: cumulative totals never go back.
      let summary =
        current.map {
          Self.summary(
            $0.totals, counters: $0.counters, latest: $0.epoch == epoch ? latest : nil,
            live: liveSummary, countsFloors: countsFloors)
        } ?? liveSummary
      return baseline.withLock { state in
        let shown = summary.notBelow(state.shown)
        state.shown = shown
        return shown
      }
    }
  }

  /// `totals` (with `counters` at the same instant) advanced by the counter's `latest` reading.
  package static func summary(
    _ totals: DaemonPedometerTotals, counters: DaemonPedometerReading,
    latest: DaemonPedometerReading?,
    live: PedometerSummary, countsFloors: Bool
  ) -> PedometerSummary {
    func count(_ value: Double) -> Int {
      value.isFinite ? Int(Swift.min(Swift.max(value.rounded(), 0), 1e12)) : 0
    }
    // A reading older than the answer (stream and replies travel separately) adds nothing.
    func since(_ now: UInt64?, _ then: UInt64) -> Int {
      count(Double(now.map { $0 > then ? $0 - then : 0 } ?? 0))
    }
    // The daemon's numbers are outside input: a non-finite or negative one counts as nothing.
    func amount(_ value: Double) -> Double { value.isFinite ? Swift.max(0, value) : 0 }
    var summary = live
    summary.numberOfSteps = count(totals.steps) + since(latest?.steps, counters.steps)
    summary.distance =
      amount(totals.distance) + (latest.map { amount($0.distance - counters.distance) } ?? 0)
    summary.activeDuration =
      amount(totals.activeTime) + (latest.map { amount($0.activeTime - counters.activeTime) } ?? 0)
    if countsFloors {
      summary.floorsAscended =
        count(totals.floorsAscended) + since(latest?.floorsAscended, counters.floorsAscended)
      summary.floorsDescended =
        count(totals.floorsDescended) + since(latest?.floorsDescended, counters.floorsDescended)
    }
    return summary
  }

  /// Subscribes (once) to the daemon's live pedometer counter.
  private func startCounting() {
    counterSubscription.withLock { subscription in
      guard subscription == nil else { return }
      subscription = try? client.subscribe(DaemonStreamRequest(pedometer: true)) {
        [counter] event in
        switch event {
        case .pedometer(let reading):
          counter.withLock { $0.reading = reading }
        case .disconnected:
          counter.withLock {
            $0.epoch &+= 1
            $0.reading = nil
          }
        default:
          break
        }
      }
    }
  }

  package func activities(from start: Date, to end: Date) -> [ActivityRecord] {
    guard let segments = wait(for: .activities(from: start, to: end)),
      !segments.isEmpty
    else {
      return live.activities(from: start, to: end)
    }
    return segments.map { segment in
      let confidence =
        ActivityEstimate.Confidence(rawValue: Swift.min(Swift.max(segment.confidence, 0), 2))
        ?? .low
      let estimate = ActivityEstimate(
        stationary: segment.stationary, walking: segment.walking, running: segment.running,
        cycling: segment.cycling, automotive: segment.automotive, unknown: segment.unknown,
        confidence: confidence, startTime: segment.timestamp)
      return ActivityRecord(
        estimate: estimate, date: segment.startDate, timestamp: segment.timestamp)
    }
  }

  package func altitudes(from start: Date, to end: Date) -> [AltitudeRecord] {
    // The daemon keeps no altitude history; the altimeter only reports live values anyway.
    live.altitudes(from: start, to: end)
  }

  package func pressure(
    atStartAltitude altitude: Double, reading pressure: Double, date: Date
  ) -> Double {
    // The daemon's pressure is the barometer the live history reads: one anchor for both, so
    // that `CMAltimeter()` and `CMAltimeter(source:)` of the daemon's source agree, and a
    // reconnection (a restarted daemon, the same barometer) keeps it.
    live.pressure(atStartAltitude: altitude, reading: pressure, date: date)
  }

  package func recordAccelerometer(forDuration duration: TimeInterval) {
    // The daemon records while this process is gone; the live history records too, so that a
    // query still answers if the daemon disappears.
    live.recordAccelerometer(forDuration: duration)
    let client = self.client
    requests.async {
      client.ask(.recordAccelerometer(duration: duration)) { _ in }
    }
  }

  package func recordedAccelerometer(from start: Date, to end: Date) -> [AccelerometerRecord] {
    guard let samples = wait(for: .recordedAccelerometer(from: start, to: end)),
      !samples.isEmpty
    else { return live.recordedAccelerometer(from: start, to: end) }
    return samples.map { sample in
      AccelerometerRecord(
        identifier: sample.identifier, timestamp: sample.timestamp, date: sample.startDate,
        acceleration: Units.coreMotionAcceleration(fromSpecificForce: sample.specificForce))
    }
  }

  package func subscribe(
    _ handler: @escaping @Sendable (MotionHistoryEvent) -> Void
  ) -> SourceSubscription {
    live.subscribe(handler)
  }

  deinit {
    counterSubscription.withLock { $0 }?.cancel()
  }

  /// Asks the daemon `query` and waits for the answer on this thread (the history API is
  /// synchronous), at most ``queryTimeout`` seconds; `nil` on failure. The pedometer, step
  /// counter and activity queries ask from a queue of their own, never the app's; only
  /// `CMSensorRecorder.accelerometerData(from:to:)`, synchronous in Apple's API too, waits on
  /// the caller's thread. The wait needs no other thread of the process
  /// (see `DaemonClient.waitForAnswer(to:timeout:)`).
  ///
  /// Never call it from a live event handler: those run on the connection's reader thread, which
  /// is the one that reads the answer, so the wait would always time out.
  private func wait<Value: Sendable>(for query: DaemonQuery<Value>) -> Value? {
    try? client.waitForAnswer(to: query, timeout: queryTimeout)
  }
}

/// The daemon's totals from a pedometer update's start date, with its live counter at the same
/// instant, and the connection epoch they belong to.
private struct PedometerBaseline: Sendable {
  var epoch: UInt64
  var totals: DaemonPedometerTotals
  var counters: DaemonPedometerReading
}

/// The baseline of one run of pedometer updates and its background refetching.
private struct PedometerBaselineState: Sendable {
  var baseline: PedometerBaseline?
  /// Whether an answer is being waited for (one at a time).
  var isFetching = false
  /// When the last question was asked (the first one included).
  var lastAttempt: Date
  /// The largest totals returned so far.
  var shown: PedometerSummary?
}

extension PedometerSummary {
  /// These totals, each raised to `floor`'s where it is larger (the dates, pace and cadence are
  /// these): a cumulative count that must not go back.
  package func notBelow(_ floor: PedometerSummary?) -> PedometerSummary {
    guard let floor else { return self }
    var raised = self
    raised.numberOfSteps = Swift.max(numberOfSteps, floor.numberOfSteps)
    raised.distance = Swift.max(distance, floor.distance)
    raised.activeDuration = Swift.max(activeDuration, floor.activeDuration)
    if let ascended = floorsAscended, let shown = floor.floorsAscended {
      raised.floorsAscended = Swift.max(ascended, shown)
    }
    if let descended = floorsDescended, let shown = floor.floorsDescended {
      raised.floorsDescended = Swift.max(descended, shown)
    }
    return raised
  }
}
