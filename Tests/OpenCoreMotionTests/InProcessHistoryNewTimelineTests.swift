// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// A source the test feeds by hand, synchronously: an accelerometer at rest and a barometer.
private final class HandFedSource: SensorSource, @unchecked Sendable {
  // `handlers` is behind its lock; the rest is immutable.
  private let handlers = Locked<[@Sendable (SourceEvent) -> Void]>([])
  let name = "hand-fed"
  let availableSensors: SensorSet = [.accelerometer, .barometer]
  let supportedSampleRates: ClosedRange<Double> = 1...100

  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    handlers.withLock { $0.append(handler) }
    return SourceSubscription(onCancel: {})
  }

  func push(t: Double, pressure: Double, specificForce: SIMD3<Double> = SIMD3(0, 0, 9.81)) {
    let sample = MotionSample(timestamp: t, accelerometer: specificForce, pressure: pressure)
    for handler in handlers.withLock({ $0 }) { handler(.sample(sample)) }
  }

  func push(_ sample: MotionSample) {
    for handler in handlers.withLock({ $0 }) { handler(.sample(sample)) }
  }

  /// Ends the stream (samples may follow: the source came back).
  func finish() {
    for handler in handlers.withLock({ $0 }) { handler(.finished) }
  }
}

/// The in-process history goes on when the source's clock restarts lower: a daemon or a
/// simulation started again behind a reconnecting client, or one sample stamped far in the
/// future. It used to take every later sample for an out-of-order one, so the altimeter, the
/// pedometer and the activity stopped without an error until the new clock passed the old one.
/// (Found by a review of 2026-11-29.)
final class InProcessHistoryNewTimelineTests: XCTestCase {
  /// One sample stamped 1e9 s, then the device climbs about 10 m on its normal clock: the
  /// altitude follows it, and the history's dates stay on the normal clock (the far-ahead sample
  /// is left out: the next sample is earlier than it).
  func testOneSampleStampedFarAheadDoesNotStopTheAltimeter() {
    let source = HandFedSource()
    let history = HistoryFixture.history(source)
    let altimeter = CMAltimeter(backend: history)
    let queue = makeSerialQueue()
    let received = Collector<CMAltitudeData>()
    altimeter.startRelativeAltitudeUpdates(to: queue) { data, _ in data.map(received.append) }
    for i in 0..<500 { source.push(t: Double(i) / 100, pressure: 101.325) }
    source.push(t: 1e9, pressure: 101.325)
    for i in 500..<1500 { source.push(t: Double(i) / 100, pressure: 101.2) }
    drain(queue)
    altimeter.stopRelativeAltitudeUpdates()
    let after = received.all.filter { $0.timestamp > 5.5 }
    XCTAssertGreaterThan(after.count, 5, "updates after the far-ahead sample")
    XCTAssertLessThan(after.last?.timestamp ?? .infinity, 16)
    // 0.125 kPa lower is about 10.4 m up (standard atmosphere), relative to the first reading.
    XCTAssertEqual(after.last?.relativeAltitude.doubleValue ?? 0, 10.4, accuracy: 0.3)
    let records = history.altitudes(from: .distantPast, to: .distantFuture)
    XCTAssertLessThanOrEqual(records.last?.date ?? .distantFuture, HistoryFixture.date(15))
  }

  /// One sample stamped 0 in the middle of a stream at t = 500 (a stale stamp), then the stream
  /// goes on: the sample is left out, and the dates stay on the stream's clock. It used to begin a
  /// new timeline dated from now at 0, so every later record was dated 500 s ahead of it.
  /// (Found by a review of 2026-11-30.)
  func testOneSampleStampedFarBehindDoesNotMoveTheDates() {
    let source = HandFedSource()
    let history = HistoryFixture.history(source)
    for i in 50_000...52_000 { source.push(t: Double(i) / 100, pressure: 101.325) }
    source.push(t: 0, pressure: 101.325)
    for i in 52_001...53_000 { source.push(t: Double(i) / 100, pressure: 101.325) }
    let records = history.altitudes(from: .distantPast, to: .distantFuture)
    XCTAssertGreaterThan(records.count, 25, "one record a second over 30 s")
    XCTAssertLessThanOrEqual(records.last?.date ?? .distantFuture, HistoryFixture.date(531))
    XCTAssertGreaterThan(records.last?.date ?? .distantPast, HistoryFixture.date(529))
  }

  /// The source finishes (a motion daemon's replay ended), then samples flow again (the daemon
  /// restarted and the client resubscribed): an altimeter started after that gets live updates.
  /// The history stayed finished, and told every later subscriber `.finished` at once.
  /// (Found by a review of 2026-11-30.)
  func testUpdatesStartedAfterTheSourceCameBackAreDelivered() {
    let source = HandFedSource()
    let history = HistoryFixture.history(source)
    for i in 0..<500 { source.push(t: Double(i) / 100, pressure: 101.325) }
    source.finish()
    for i in 500..<1000 { source.push(t: Double(i) / 100, pressure: 101.325) }
    let altimeter = CMAltimeter(backend: history)
    let queue = makeSerialQueue()
    let received = Collector<CMAltitudeData>()
    altimeter.startRelativeAltitudeUpdates(to: queue) { data, _ in data.map(received.append) }
    for i in 1000..<1500 { source.push(t: Double(i) / 100, pressure: 101.2) }
    drain(queue)
    altimeter.stopRelativeAltitudeUpdates()
    XCTAssertGreaterThan(received.count, 0, "live updates after the source came back")
    // About 10 m up (0.125 kPa lower), the filter still settling 5 s after the change.
    XCTAssertGreaterThan(received.all.last?.relativeAltitude.doubleValue ?? 0, 5)
  }

  /// A walk until t = 21, then nothing from the source for an hour, then rest: the pause is dated
  /// when the walk stopped (about 2 s after its last step), not when the source came back. It was
  /// dated at the first sample after the gap, so the event stream showed an hour-long walk.
  /// (Found by a review of 2026-11-30.)
  func testAPauseAfterAGapInTheSourceIsDatedWhenTheWalkStopped() {
    let source = HandFedSource()
    let history = HistoryFixture.history(source)
    let pedometer = CMPedometer(backend: history)
    let events = Collector<CMPedometerEvent>()
    pedometer.startEventUpdates { event, _ in event.map(events.append) }
    var stream = SimulatedSensorStream(
      scenario: HistoryFixture.walkScenario(restBefore: 1, walk: 20, restAfter: 0))
    while let sample = try? stream.next() { source.push(sample) }
    for i in 0..<300 { source.push(t: 3621 + Double(i) / 100, pressure: 101.325) }
    drain(pedometer.handlerQueue)
    pedometer.stopEventUpdates()
    let pauses = events.all.filter { $0.type == .pause }
    XCTAssertEqual(pauses.count, 1)
    XCTAssertGreaterThan(pauses.first?.date ?? .distantPast, HistoryFixture.date(15))
    XCTAssertLessThan(pauses.first?.date ?? .distantFuture, HistoryFixture.date(26))
  }

  /// A gap in the stream (a minute without samples) is not a wrong stamp: the samples after it
  /// are observed, the first of them as soon as the second confirms the clock moved on.
  func testAGapInTheStreamIsObserved() {
    let source = HandFedSource()
    let history = HistoryFixture.history(source)
    for i in 0..<500 { source.push(t: Double(i) / 100, pressure: 101.325) }
    for i in 0..<500 { source.push(t: 65 + Double(i) / 100, pressure: 101.2) }
    let records = history.altitudes(from: .distantPast, to: .distantFuture)
    XCTAssertEqual(records.last?.altitude ?? 0, 10.4, accuracy: 0.3)
    XCTAssertGreaterThan(records.last?.date ?? .distantPast, HistoryFixture.date(68.5))
    XCTAssertLessThanOrEqual(records.last?.date ?? .distantFuture, HistoryFixture.date(70))
  }

  /// The clock restarts at 0 after 20 s (a restarted daemon's simulation): updates go on, and
  /// the history's dates stay in order across the restart.
  func testAClockThatRestartsLowerKeepsTheHistoryGoing() {
    let source = HandFedSource()
    let history = HistoryFixture.history(source)
    for i in 0..<2000 { source.push(t: Double(i) / 100, pressure: 101.325) }
    for i in 0..<1000 { source.push(t: Double(i) / 100, pressure: 101.2) }
    let records = history.altitudes(from: .distantPast, to: .distantFuture)
    XCTAssertGreaterThan(records.count, 25, "one record a second over 30 s")
    XCTAssertEqual(records.last?.altitude ?? 0, 10.4, accuracy: 0.3)
    for (earlier, later) in zip(records, records.dropFirst()) {
      XCTAssertLessThanOrEqual(earlier.date, later.date)
    }
  }
}

/// Live pedometer updates across a restart of the source's clock (a reconnecting client of a
/// restarted daemon, a simulation started again) in the middle of a walk. The updates' spacing
/// was measured from the old clock's last delivery, so every step after the restart was held
/// until a pause. (Found by a review of 2026-11-29.)
final class PedometerAcrossANewTimelineTests: XCTestCase {
  func testUpdatesGoOnDuringAWalkAfterTheClockRestarts() {
    let source = HandFedSource()
    // Source time 0 is now (the fixture's anchor is months ago, and the restart continues the
    // dates from now: the history would keep only the last 7 days of them).
    let start = Date()
    let history = InProcessMotionHistory(
      source: source, timeline: MotionTimeline(referenceDate: start, referenceTimestamp: 0))
    let pedometer = CMPedometer(backend: history)
    let received = Collector<CMPedometerData>()
    pedometer.startUpdates(from: start) { data, _ in data.map(received.append) }
    // The simulator's walk (1.8 steps/s, phone in hand), its samples fed twice on the same
    // clock: the second time, the clock has started again at 0 in the middle of the walk.
    var stream = SimulatedSensorStream(
      scenario: HistoryFixture.walkScenario(restBefore: 1, walk: 40, restAfter: 0))
    var walk: [MotionSample] = []
    while let sample = try? stream.next() { walk.append(sample) }
    let walking = walk.filter { $0.timestamp >= 2 }
    for sample in walk { source.push(sample) }
    drain(pedometer.handlerQueue)
    let beforeRestart = received.count
    XCTAssertGreaterThan(beforeRestart, 20, "about one update a second while walking")
    for sample in walking { source.push(sample) }  // the clock starts again at 2 s
    drain(pedometer.handlerQueue)
    pedometer.stopUpdates()
    let after = received.all.dropFirst(beforeRestart)
    XCTAssertGreaterThan(after.count, 20, "updates while the walk goes on after the restart")
    let counts = received.all.map(\.numberOfSteps.intValue)
    XCTAssertEqual(counts, counts.sorted(), "cumulative counts never go back")
    XCTAssertGreaterThan(counts.last ?? 0, 120, "about 140 steps in all")
  }
}

/// Two services whose handlers stop each other's service, both running at once (each altimeter
/// stops the other when it reports): each stop used to wait for the other handler, which waited
/// for it, for ever. A stop from inside a handler now does not wait for another service's running
/// handler; no call of the stopped service starts after it returns. (Found by the same review.)
final class CrossServiceStopTests: XCTestCase {
  /// One altimeter's side: its handler, on its first call, says it is running, waits until the
  /// other's handler runs too, then stops `other`.
  private struct Side {
    let altimeter: CMAltimeter
    let running = DispatchSemaphore(value: 0)
    let calls = Locked(0)
    let returned: XCTestExpectation

    func start(stopping other: Side) {
      altimeter.startRelativeAltitudeUpdates(to: makeSerialQueue()) { _, _ in
        guard
          calls.withLock({
            $0 += 1; return $0 == 1
          })
        else { return }
        running.signal()
        _ = other.running.wait(timeout: .now() + 5)  // both handlers are running now
        other.altimeter.stopRelativeAltitudeUpdates()
        returned.fulfill()
      }
    }
  }

  func testHandlersThatStopEachOthersServiceDoNotWaitForEachOther() {
    let source = HandFedSource()
    let history = HistoryFixture.history(source)
    let first = Side(
      altimeter: CMAltimeter(backend: history),
      returned: expectation(description: "the first handler returned"))
    let second = Side(
      altimeter: CMAltimeter(backend: history),
      returned: expectation(description: "the second handler returned"))
    first.start(stopping: second)
    second.start(stopping: first)
    source.push(t: 0, pressure: 101.325)
    wait(for: [first.returned, second.returned], timeout: 20)
    // Both are stopped: later readings reach neither.
    for i in 1...300 { source.push(t: Double(i) / 100, pressure: 101.2) }
    Thread.sleep(forTimeInterval: 0.2)
    XCTAssertEqual(first.calls.withLock { $0 }, 1)
    XCTAssertEqual(second.calls.withLock { $0 }, 1)
  }
}

/// The system's wall clock set while the history runs: a board without a battery-backed clock
/// boots in 1970 and NTP sets the date a minute later, after an app at boot has started. The
/// history anchored its dates once, at the first sample, so every later step stayed in 1970, and
/// an update or a query for today found none of them. (Found in session review, 2026-11-29.)
final class InProcessHistoryWallClockStepTests: XCTestCase {
  /// Clocks the test sets: the boot clock follows the source's time (as for live hardware), and
  /// the wall clock is the boot clock plus an offset the test can step.
  private final class TestClocks: Sendable {
    private let state = Locked((boot: 0.0, offset: 100.0))
    var reading: InProcessMotionHistory.ClockReading {
      { [state] in
        state.withLock { (Date(timeIntervalSince1970: $0.offset + $0.boot), $0.boot) }
      }
    }
    func advance(to boot: Double) { state.withLock { $0.boot = boot } }
    func setWallClock(forwardBy step: Double) { state.withLock { $0.offset += step } }
    var now: Date { reading().wall }
  }

  /// Pushes `rows` of a still device at 100 Hz with `pressure` (kPa), source time row / 100 s,
  /// the boot clock `bootAhead` s ahead of it (a source whose clock restarted).
  private func feed(
    _ source: HandFedSource, _ clocks: TestClocks, rows: Range<Int>, pressure: Double,
    bootAhead: Double = 0
  ) {
    for row in rows {
      let t = Double(row) / 100
      clocks.advance(to: bootAhead + t)
      source.push(t: t, pressure: pressure)
    }
  }

  /// Booted in 1970; 20 s in, the clock is set forward to 2026 while the device climbs about
  /// 10 m: the altitude records after the step are dated in 2026, the step's second included;
  /// those before it move with the clock (they were the wrong clock's), and all stay in order.
  func testDatesFollowTheWallClockWhenItIsSetForward() {
    let source = HandFedSource()
    let clocks = TestClocks()
    let history = InProcessMotionHistory(source: source, clocks: clocks.reading)
    feed(source, clocks, rows: 0..<2000, pressure: 101.325)
    let step = 1_795_000_000.0  // 1970 → 2026
    clocks.setWallClock(forwardBy: step)
    let setAt = clocks.now
    feed(source, clocks, rows: 2000..<3000, pressure: 101.2)
    let now = clocks.now
    let recent = history.altitudes(from: setAt.addingTimeInterval(-1), to: now)
    XCTAssertGreaterThanOrEqual(recent.count, 9, "one record a second since the clock was set")
    XCTAssertEqual(recent.last?.altitude ?? 0, 10.4, accuracy: 0.3)
    XCTAssertEqual(recent.last?.date.timeIntervalSince(now) ?? .infinity, 0, accuracy: 1.5)
    let all = history.altitudes(from: .distantPast, to: .distantFuture)
    XCTAssertGreaterThanOrEqual(all.count, 28, "the records before the step are kept")
    XCTAssertEqual(
      all.first?.date.timeIntervalSince(now) ?? .infinity, -30, accuracy: 1.5,
      "and dated on the new clock")
    for (earlier, later) in zip(all, all.dropFirst()) {
      XCTAssertLessThanOrEqual(earlier.date, later.date)
    }
  }

  /// The source's clock restarts (a phone stream reconnecting) after the system clock was set
  /// while it was away: the step is applied once, not once by the new timeline and again by the
  /// watch (which dated the history 56 years ahead).
  func testAClockSetWhileTheSourceRestartsIsAppliedOnce() {
    let source = HandFedSource()
    let clocks = TestClocks()
    let history = InProcessMotionHistory(source: source, clocks: clocks.reading)
    feed(source, clocks, rows: 0..<1000, pressure: 101.325)
    clocks.setWallClock(forwardBy: 1_795_000_000)
    // The source comes back 30 s later with its clock at 0; the boot clock went on.
    feed(source, clocks, rows: 0..<1000, pressure: 101.325, bootAhead: 40)
    let all = history.altitudes(from: .distantPast, to: .distantFuture)
    XCTAssertEqual(
      all.last?.date.timeIntervalSince(clocks.now) ?? .infinity, 0, accuracy: 1.5,
      "the newest record is dated now")
    for (earlier, later) in zip(all, all.dropFirst()) {
      XCTAssertLessThanOrEqual(earlier.date, later.date)
    }
  }

  /// Set back by an hour: the history stays in date order, and a recording asked for keeps
  /// its length instead of ending at the step.
  func testAClockSetBackKeepsTheOrderAndTheRecording() {
    let source = HandFedSource()
    let clocks = TestClocks()
    let history = InProcessMotionHistory(source: source, clocks: clocks.reading)
    feed(source, clocks, rows: 0..<1000, pressure: 101.325)
    history.recordAccelerometer(forDuration: 20)
    feed(source, clocks, rows: 1000..<1500, pressure: 101.325)
    clocks.setWallClock(forwardBy: -3600)
    feed(source, clocks, rows: 1500..<2500, pressure: 101.325)
    let altitudes = history.altitudes(from: .distantPast, to: .distantFuture)
    for (earlier, later) in zip(altitudes, altitudes.dropFirst()) {
      XCTAssertLessThanOrEqual(earlier.date, later.date)
    }
    // Recorded from 10 s to 25 s of source time (the source ends there), at 50 Hz.
    let recorded = history.recordedAccelerometer(from: .distantPast, to: .distantFuture)
    XCTAssertGreaterThan(recorded.count, 600, "the recording went on after the clock was set back")
  }

  /// The clock set forward by 1e9 s about 0.3 s after the walk's last step was reported, before
  /// its pause (2 s later): the live updates' counts never go back. The steps moved forward with
  /// the clock while the update's end stayed on the old clock, so the pause's update counted
  /// about 0 steps. (Found by a review of 2026-11-30.)
  func testPedometerCountsDoNotGoBackWhenTheClockIsSetForwardBeforeThePause() {
    var stream = SimulatedSensorStream(
      scenario: HistoryFixture.walkScenario(restBefore: 1, walk: 20, restAfter: 4))
    var walk: [MotionSample] = []
    while let sample = try? stream.next() { walk.append(sample) }
    // When the last step is reported: a dry run through a history of its own.
    let dry = HandFedSource()
    let dryHistory = InProcessMotionHistory(source: dry)
    let feeding = Locked(0.0)
    let lastReport = Locked<Double?>(nil)
    let watch = dryHistory.subscribe { event in
      if case .step = event { lastReport.withLock { $0 = feeding.withLock { $0 } } }
    }
    for sample in walk {
      feeding.withLock { $0 = sample.timestamp }
      dry.push(sample)
    }
    watch.cancel()
    guard let lastStep = lastReport.withLock({ $0 }) else { return XCTFail("no step in the walk") }
    let source = HandFedSource()
    let clocks = TestClocks()
    let history = InProcessMotionHistory(source: source, clocks: clocks.reading)
    let pedometer = CMPedometer(backend: history)
    let received = Collector<CMPedometerData>()
    pedometer.startUpdates(from: clocks.now) { data, _ in data.map(received.append) }
    var isSet = false
    for sample in walk {
      if !isSet, sample.timestamp >= lastStep + 0.3 {
        clocks.setWallClock(forwardBy: 1e9)
        isSet = true
      }
      clocks.advance(to: sample.timestamp)
      source.push(sample)
    }
    drain(pedometer.handlerQueue)
    pedometer.stopUpdates()
    XCTAssertTrue(isSet, "the clock was set before the pause")
    let counts = received.all.map(\.numberOfSteps.intValue)
    XCTAssertGreaterThan(counts.last ?? 0, 25, "about 1.8 steps/s over the 20 s walk")
    XCTAssertEqual(counts, counts.sorted(), "cumulative counts never go back")
  }

  /// A recording made, then the source stops and 4 days pass: the recording is no longer
  /// returned (3 days are kept, as Apple). Entries were dropped only when newer ones arrived, so
  /// it was returned for ever. (Found by a review of 2026-11-30.)
  func testARecordingOlderThanThreeDaysIsNotReturnedWithoutNewData() {
    let source = HandFedSource()
    let clocks = TestClocks()
    let history = InProcessMotionHistory(source: source, clocks: clocks.reading)
    history.recordAccelerometer(forDuration: 5)
    feed(source, clocks, rows: 0..<1000, pressure: 101.325)
    let fresh = history.recordedAccelerometer(from: .distantPast, to: .distantFuture)
    XCTAssertGreaterThan(fresh.count, 200, "5 s at 50 Hz")
    clocks.advance(to: 10 + 2 * 86_400)
    XCTAssertEqual(
      history.recordedAccelerometer(from: .distantPast, to: .distantFuture).count, fresh.count,
      "kept for 3 days")
    clocks.advance(to: 10 + 4 * 86_400)
    XCTAssertEqual(history.recordedAccelerometer(from: .distantPast, to: .distantFuture).count, 0)
  }

  /// The source pauses for 20 minutes (a phone stream gone away), a 10-minute recording is asked
  /// for, and samples come again 5 minutes later: they are recorded. The recording was timed from
  /// the last sample seen, 20 minutes before the request, so it had ended before it began and
  /// nothing was recorded. (Found by a review of 2026-11-30.)
  func testARecordingAskedForDuringAGapInTheSourceRunsFromTheRequest() {
    let source = HandFedSource()
    let clocks = TestClocks()
    let history = InProcessMotionHistory(source: source, clocks: clocks.reading)
    feed(source, clocks, rows: 0..<1000, pressure: 101.325)
    clocks.advance(to: 10 + 1200)
    history.recordAccelerometer(forDuration: 600)
    // 5 minutes after the request, on the source's clock, which went on through the gap.
    feed(source, clocks, rows: 151_000..<152_000, pressure: 101.325)
    let recorded = history.recordedAccelerometer(from: .distantPast, to: .distantFuture)
    XCTAssertGreaterThan(recorded.count, 400, "10 s at 50 Hz")
    XCTAssertEqual(
      recorded.last?.date.timeIntervalSince(clocks.now) ?? .infinity, 0, accuracy: 1,
      "the samples after the gap")
  }

  /// A walk, then the source stops and 8 days pass: its steps are no longer counted (7 days are
  /// kept, as Apple). They were counted as long as nothing newer was walked. (Same review.)
  func testStepsOlderThanSevenDaysAreNotCountedWithoutNewSteps() {
    let source = HandFedSource()
    let clocks = TestClocks()
    let history = InProcessMotionHistory(source: source, clocks: clocks.reading)
    var stream = SimulatedSensorStream(
      scenario: HistoryFixture.walkScenario(restBefore: 1, walk: 20, restAfter: 3))
    while let sample = try? stream.next() {
      clocks.advance(to: sample.timestamp)
      source.push(sample)
    }
    let steps = { history.pedometerSummary(from: .distantPast, to: .distantFuture).numberOfSteps }
    let activities = { history.activities(from: .distantPast, to: .distantFuture).count }
    XCTAssertGreaterThan(steps(), 25, "about 1.8 steps/s over the 20 s walk")
    XCTAssertGreaterThan(activities(), 1, "still, walking, ...")
    clocks.advance(to: 30 + 6 * 86_400)
    XCTAssertGreaterThan(steps(), 25, "kept for 7 days")
    clocks.advance(to: 30 + 8 * 86_400)
    XCTAssertEqual(steps(), 0)
    // The source has said nothing for 8 days: nothing is known of the 7 days kept.
    XCTAssertEqual(activities(), 0, "activities older than 7 days")
  }

  /// The same during a walk, through the Core Motion API: a pedometer started after the clock
  /// was set counts the steps that follow, and a query over the minute since then finds them; one
  /// started at boot, before the step, goes on counting every step (kept at their old dates, the
  /// steps before the clock was set were pruned as older than 7 days at the next step).
  func testAPedometerStartedAfterTheClockWasSetCountsTheSteps() {
    let source = HandFedSource()
    let clocks = TestClocks()
    let history = InProcessMotionHistory(source: source, clocks: clocks.reading)
    let pedometer = CMPedometer(backend: history)
    let atBoot = CMPedometer(backend: history)
    let sinceBoot = Collector<CMPedometerData>()
    atBoot.startUpdates(from: clocks.now) { data, _ in data.map(sinceBoot.append) }
    var stream = SimulatedSensorStream(
      scenario: HistoryFixture.walkScenario(restBefore: 1, walk: 40, restAfter: 3))
    var walk: [MotionSample] = []
    while let sample = try? stream.next() { walk.append(sample) }
    let step = 1_795_000_000.0
    var started: Date?
    let received = Collector<CMPedometerData>()
    for sample in walk {
      if started == nil, sample.timestamp >= 10 {
        clocks.setWallClock(forwardBy: step)
        started = clocks.now
        pedometer.startUpdates(from: clocks.now) { data, _ in data.map(received.append) }
      }
      clocks.advance(to: sample.timestamp)
      source.push(sample)
    }
    drain(pedometer.handlerQueue)
    pedometer.stopUpdates()
    drain(atBoot.handlerQueue)
    atBoot.stopUpdates()
    let sinceBootCounts = sinceBoot.all.map(\.numberOfSteps.intValue)
    XCTAssertEqual(sinceBootCounts, sinceBootCounts.sorted(), "cumulative counts never go back")
    // About 1.8 steps/s over the 40 s walk.
    XCTAssertGreaterThan(sinceBootCounts.last ?? 0, 62, "every step of the walk")
    // About 1.8 steps/s over the 31 s of walking after the clock was set.
    let counted = received.all.last?.numberOfSteps.intValue ?? 0
    XCTAssertGreaterThan(counted, 45, "steps in the live updates")
    XCTAssertLessThan(counted, 62)
    let answer = Locked<CMPedometerData?>(nil)
    let done = expectation(description: "query")
    pedometer.queryPedometerData(from: started ?? .distantPast, to: clocks.now) { data, _ in
      answer.withLock { $0 = data }
      done.fulfill()
    }
    wait(for: [done], timeout: 10)
    let queried = answer.withLock { $0 }?.numberOfSteps.intValue ?? 0
    XCTAssertEqual(Double(queried), Double(counted), accuracy: 2, "the query finds them too")
  }
}
