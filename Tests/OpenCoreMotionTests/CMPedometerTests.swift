// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import MotionSensors
import SourceComposition
import XCTest

@testable import OpenCoreMotion

/// CMPedometer's API semantics on the simulator: cumulative live updates, query ranges, replaced
/// handlers, stop, events, availability and errors. Step-count accuracy belongs to the detector's
/// own tests; here counts are checked only loosely against the scenario's cadence.
final class CMPedometerTests: XCTestCase {
  /// Runs the walk scenario to its end with live updates from source time 0; returns the updates
  /// and the pedometer.
  private func walkWithUpdates(
    _ scenario: Scenario = HistoryFixture.walkScenario()
  ) -> (updates: [CMPedometerData], pedometer: CMPedometer, clock: VirtualClock) {
    let clock = VirtualClock()
    let pedometer = CMPedometer(
      backend: HistoryFixture.history(HistoryFixture.player(scenario, clock: clock)))
    let updates = Collector<CMPedometerData>()
    pedometer.startUpdates(from: HistoryFixture.anchor) { data, error in
      XCTAssertNil(error)
      if let data { updates.append(data) }
    }
    clock.advance(by: scenario.segmentsDuration + 1)
    drain(pedometer.handlerQueue)
    pedometer.stopUpdates()
    return (updates.all, pedometer, clock)
  }

  private func query(
    _ pedometer: CMPedometer, _ start: Date, _ end: Date
  ) -> (CMPedometerData?, (any Error)?) {
    let result = Locked<(CMPedometerData?, (any Error)?)>((nil, nil))
    let done = expectation(description: "query")
    pedometer.queryPedometerData(from: start, to: end) { data, error in
      result.withLock { $0 = (data, error) }
      done.fulfill()
    }
    wait(for: [done], timeout: 10)
    return result.withLock { $0 }
  }

  func testLiveUpdatesAreCumulativeFromTheStartDate() throws {
    let (updates, pedometer, _) = walkWithUpdates()
    XCTAssertGreaterThan(updates.count, 3)
    for (a, b) in zip(updates, updates.dropFirst()) {
      XCTAssertLessThanOrEqual(a.numberOfSteps.intValue, b.numberOfSteps.intValue)
      XCTAssertLessThanOrEqual(a.distance!.doubleValue, b.distance!.doubleValue)
      XCTAssertLessThanOrEqual(a.endDate, b.endDate)
    }
    XCTAssertTrue(updates.allSatisfy { $0.startDate == HistoryFixture.anchor })
    // The last update (sent at the pause) holds every step, as a query of the whole walk does.
    let last = try XCTUnwrap(updates.last)
    let (whole, error) = query(pedometer, HistoryFixture.anchor, HistoryFixture.date(60))
    XCTAssertNil(error)
    XCTAssertEqual(last.numberOfSteps, whole?.numberOfSteps)
    // 20 s at 1.8 steps/s = 36 steps; ±25 % (the scaffolding detector is not the tuned one).
    XCTAssertEqual(last.numberOfSteps.doubleValue, 36, accuracy: 9)
    // Live updates carry the current cadence (steps/s) and pace (s/m) while walking.
    let walking = updates.filter { $0.numberOfSteps.intValue > 10 }
    XCTAssertTrue(walking.contains { $0.currentCadence != nil && $0.currentPace != nil })
    for data in walking {
      if let cadence = data.currentCadence?.doubleValue {
        XCTAssertEqual(cadence, 1.8, accuracy: 1.2)
        // Pace is the inverse of speed, seconds per metre: one step's stride at this cadence
        // (the default height's model) over one step's time. A speed in m/s would be 1.57× it
        // here (1.8 steps/s × 0.70 m against 0.80 s/m) and fail.
        let stride = StrideModel().strideLength(cadence: cadence)
        let pace = try XCTUnwrap(data.currentPace).doubleValue
        XCTAssertEqual(pace * cadence * stride, 1, accuracy: 1e-9, "pace \(pace) s/m")
      }
    }
    if PressureAltitudeAdapter.countsFloors {
      // A walk on the level: no floor.
      XCTAssertEqual(last.floorsAscended, 0)
      XCTAssertEqual(last.floorsDescended, 0)
    } else {
      // Without floor counting the fields are nil, as Apple reports them.
      XCTAssertNil(last.floorsAscended)
      XCTAssertNil(last.floorsDescended)
    }
  }

  /// Live updates started during a walk on a source whose samples arrive 5 s behind the wall
  /// clock (a phone stream's buffered samples, a loaded machine): the opening update ends at the
  /// wall clock's now, so do the updates of the steps dated before it, and each carries the
  /// current cadence and pace until the walk pauses. Judged from the steps' dates at the update's
  /// end, those of the steps more than 2 s before it had none.
  func testLiveUpdatesKeepTheCadenceWhileWalkingOnASourceBehindTheWallClock() throws {
    let clock = VirtualClock()
    let scenario = HistoryFixture.walkScenario()
    let lag = 5.0
    let walked = 8.0
    let history = InProcessMotionHistory(
      source: HistoryFixture.player(scenario, clock: clock),
      timeline: MotionTimeline(
        referenceDate: Date().addingTimeInterval(-walked - lag), referenceTimestamp: 0))
    let pedometer = CMPedometer(backend: history)
    let start = try XCTUnwrap(history.date(forTimestamp: 0))
    // Steps are in the history when updates start: the opening update carries them up to now.
    clock.advance(by: walked)
    let updates = Collector<CMPedometerData>()
    pedometer.startUpdates(from: start) { data, error in
      XCTAssertNil(error)
      data.map(updates.append)
    }
    clock.advance(by: scenario.segmentsDuration + 1 - walked)
    drain(pedometer.handlerQueue)
    pedometer.stopUpdates()
    let all = updates.all
    XCTAssertGreaterThan(all.first?.numberOfSteps.intValue ?? 0, 5, "the opening update")
    let live = all.dropFirst()
    // About one a second until the walk ends at 21 s.
    XCTAssertGreaterThan(live.count, 8)
    for data in live {
      let steps = data.numberOfSteps.intValue
      XCTAssertEqual(
        try XCTUnwrap(data.currentCadence, "cadence at \(steps) steps").doubleValue, 1.8,
        accuracy: 0.3)
      XCTAssertNotNil(data.currentPace, "pace at \(steps) steps")
    }
    // After the walk paused, even a window ending far ahead has no current cadence.
    let after = history.pedometerSummary(from: start, to: Date().addingTimeInterval(60))
    XCTAssertEqual(after.numberOfSteps, all.last?.numberOfSteps.intValue)
    XCTAssertNil(after.recentCadence)
    XCTAssertNil(after.recentStride)
  }

  func testQueryRangesAddUp() {
    let (_, pedometer, _) = walkWithUpdates()
    let (whole, _) = query(pedometer, HistoryFixture.anchor, HistoryFixture.date(60))
    let (first, _) = query(pedometer, HistoryFixture.anchor, HistoryFixture.date(10))
    let (second, _) = query(
      pedometer, HistoryFixture.date(10).addingTimeInterval(1e-6), HistoryFixture.date(60))
    let total = try! XCTUnwrap(whole).numberOfSteps.intValue
    XCTAssertGreaterThan(total, 0)
    XCTAssertGreaterThan(first!.numberOfSteps.intValue, 0)
    XCTAssertEqual(first!.numberOfSteps.intValue + second!.numberOfSteps.intValue, total)
    XCTAssertEqual(
      first!.distance!.doubleValue + second!.distance!.doubleValue, whole!.distance!.doubleValue,
      accuracy: 1e-9)
    // Queries carry the window asked for, and no current pace or cadence.
    XCTAssertEqual(first!.startDate, HistoryFixture.anchor)
    XCTAssertEqual(first!.endDate, HistoryFixture.date(10))
    XCTAssertNil(whole!.currentPace)
    XCTAssertNil(whole!.currentCadence)
    // Average active pace: walking time over distance, s/m. At 1.8 steps/s the model's stride is
    // 0.70 m, so 0.80 s/m; the bounds allow the scaffolding detector's cadence error and leave
    // out 1.25, the same walk's speed in m/s.
    let pace = whole!.averageActivePace!.doubleValue
    XCTAssertGreaterThan(pace, 0.65)
    XCTAssertLessThan(pace, 0.95)
    // Before any observation: zero steps, no error.
    let (before, error) = query(pedometer, HistoryFixture.date(-100), HistoryFixture.date(-50))
    XCTAssertNil(error)
    XCTAssertEqual(before?.numberOfSteps, 0)
  }

  func testQueryWithReversedRangeIsAnInvalidParameter() {
    let clock = VirtualClock()
    let pedometer = CMPedometer(
      backend: HistoryFixture.history(
        HistoryFixture.player(HistoryFixture.walkScenario(), clock: clock)))
    let (data, error) = query(pedometer, HistoryFixture.date(10), HistoryFixture.date(0))
    XCTAssertNil(data)
    XCTAssertEqual(coreMotionCode(error), Int(CMErrorInvalidParameter.rawValue))
  }

  /// A NaN date passed the reversed-range check (`start > end` is false with it) and the query
  /// answered 0 steps, or every step for a NaN end, without an error; an infinite date is no
  /// date either. The widest finite window (`distantPast ... distantFuture`) is a valid one.
  func testQueryWithANonFiniteDateIsAnInvalidParameter() {
    let clock = VirtualClock()
    let pedometer = CMPedometer(
      backend: HistoryFixture.history(
        HistoryFixture.player(HistoryFixture.walkScenario(), clock: clock)))
    clock.advance(by: HistoryFixture.walkScenario().segmentsDuration + 1)
    let nan = Date(timeIntervalSinceReferenceDate: .nan)
    let infinity = Date(timeIntervalSinceReferenceDate: .infinity)
    let minusInfinity = Date(timeIntervalSinceReferenceDate: -.infinity)
    let windows = [
      (nan, HistoryFixture.date(60)), (HistoryFixture.anchor, nan), (nan, nan),
      (HistoryFixture.anchor, infinity), (minusInfinity, HistoryFixture.date(60)),
      (minusInfinity, infinity),
    ]
    for (start, end) in windows {
      let (data, error) = query(pedometer, start, end)
      XCTAssertNil(data, window(start, end))
      XCTAssertEqual(
        coreMotionCode(error), Int(CMErrorInvalidParameter.rawValue), window(start, end))
    }
    let (all, error) = query(pedometer, .distantPast, .distantFuture)
    XCTAssertNil(error)
    XCTAssertGreaterThan(all?.numberOfSteps.intValue ?? 0, 20)
  }

  /// Live updates from a NaN start dropped every step (no date is at or after NaN) and never said
  /// why; a start that is not finite is now refused with `CMErrorInvalidParameter`, on the
  /// handler and on the async sequence.
  func testUpdatesFromANonFiniteStartAreAnInvalidParameter() async {
    for start in [
      Date(timeIntervalSinceReferenceDate: .nan), Date(timeIntervalSinceReferenceDate: .infinity),
      Date(timeIntervalSinceReferenceDate: -.infinity),
    ] {
      let clock = VirtualClock()
      let pedometer = CMPedometer(
        backend: HistoryFixture.history(
          HistoryFixture.player(HistoryFixture.walkScenario(), clock: clock)))
      let errors = Collector<Int?>()
      pedometer.startUpdates(from: start) { data, error in
        XCTAssertNil(data)
        errors.append(coreMotionCode(error))
      }
      clock.advance(by: HistoryFixture.walkScenario().segmentsDuration + 1)
      drain(pedometer.handlerQueue)
      pedometer.stopUpdates()
      XCTAssertEqual(errors.all, [Int(CMErrorInvalidParameter.rawValue)], window(start, start))
      let sequence = pedometer.updates(from: start)
      for await _ in sequence { XCTFail("no data from \(start.timeIntervalSinceReferenceDate)") }
      XCTAssertEqual(coreMotionCode(sequence.error), Int(CMErrorInvalidParameter.rawValue))
    }
  }

  func testHandlersRunOnThePedometersSerialBackgroundQueue() {
    let clock = VirtualClock()
    let pedometer = CMPedometer(
      backend: HistoryFixture.history(
        HistoryFixture.player(HistoryFixture.walkScenario(), clock: clock)))
    XCTAssertEqual(pedometer.handlerQueue.maxConcurrentOperationCount, 1)
    let onQueue = Collector<Bool>()
    pedometer.startUpdates(from: HistoryFixture.anchor) { _, _ in
      onQueue.append(OperationQueue.current === pedometer.handlerQueue && !Thread.isMainThread)
    }
    clock.advance(by: 10)
    let done = expectation(description: "query")
    pedometer.queryPedometerData(from: HistoryFixture.anchor, to: HistoryFixture.date(10)) { _, _ in
      onQueue.append(OperationQueue.current === pedometer.handlerQueue && !Thread.isMainThread)
      done.fulfill()
    }
    wait(for: [done], timeout: 10)
    drain(pedometer.handlerQueue)
    pedometer.stopUpdates()
    XCTAssertGreaterThan(onQueue.count, 1)
    XCTAssertTrue(onQueue.all.allSatisfy { $0 })
  }

  func testNoHandlerRunsAfterStop() {
    let clock = VirtualClock()
    let pedometer = CMPedometer(
      backend: HistoryFixture.history(
        HistoryFixture.player(HistoryFixture.walkScenario(), clock: clock)))
    let updates = Collector<Int>()
    let events = Collector<CMPedometerEventType>()
    pedometer.startUpdates(from: HistoryFixture.anchor) { data, _ in
      data.map { updates.append($0.numberOfSteps.intValue) }
    }
    pedometer.startEventUpdates { event, _ in event.map { events.append($0.type) } }
    clock.advance(by: 8)
    // Stop while operations may still be queued: none of them may run after the stop returns.
    pedometer.stopUpdates()
    pedometer.stopEventUpdates()
    let countsAtStop = (updates.count, events.count)
    clock.advance(by: 30)
    drain(pedometer.handlerQueue)
    XCTAssertEqual(updates.count, countsAtStop.0)
    XCTAssertEqual(events.count, countsAtStop.1)
  }

  func testSecondStartReplacesTheHandler() {
    let clock = VirtualClock()
    let pedometer = CMPedometer(
      backend: HistoryFixture.history(
        HistoryFixture.player(HistoryFixture.walkScenario(), clock: clock)))
    let first = Collector<Int>()
    let second = Collector<CMPedometerData>()
    pedometer.startUpdates(from: HistoryFixture.anchor) { data, _ in
      data.map { first.append($0.numberOfSteps.intValue) }
    }
    clock.advance(by: 8)
    drain(pedometer.handlerQueue)
    let firstCount = first.count
    XCTAssertGreaterThan(firstCount, 0)
    // A new start date: cumulative from there; the old steps come at once, then the live ones.
    pedometer.startUpdates(from: HistoryFixture.date(5)) { data, _ in data.map(second.append) }
    clock.advance(by: 30)
    drain(pedometer.handlerQueue)
    pedometer.stopUpdates()
    XCTAssertEqual(first.count, firstCount)
    XCTAssertGreaterThan(second.count, 1)
    XCTAssertTrue(second.all.allSatisfy { $0.startDate == HistoryFixture.date(5) })
    XCTAssertGreaterThan(
      second.all.first!.numberOfSteps.intValue, 0, "steps since 5 s are delivered at once")
    XCTAssertLessThan(second.all.last!.numberOfSteps.intValue, 36 + 9)
  }

  /// The pause and resume events of a pedometer over `scenario`, played on a virtual clock to
  /// its end. Events sent at the source's end may come after the clock has run: up to `count`
  /// are waited for, the 20 s being a failure bound only.
  private func pedestrianEvents(
    over scenario: Scenario, expecting count: Int
  ) -> [CMPedometerEvent] {
    let clock = VirtualClock()
    let pedometer = CMPedometer(
      backend: HistoryFixture.history(HistoryFixture.player(scenario, clock: clock)))
    let events = Collector<CMPedometerEvent>()
    pedometer.startEventUpdates { event, error in
      XCTAssertNil(error)
      event.map(events.append)
    }
    clock.advance(by: scenario.segmentsDuration + 1)
    let deadline = Date().addingTimeInterval(20)
    while events.all.count < count, Date() < deadline { usleep(10_000) }
    drain(pedometer.handlerQueue)
    pedometer.stopEventUpdates()
    return events.all
  }

  func testPauseAndResumeEvents() {
    let all = pedestrianEvents(
      over: HistoryFixture.walkScenario(restBefore: 2, walk: 10, restAfter: 5), expecting: 0)
    XCTAssertEqual(all.map(\.type), [.resume, .pause])
    guard all.count == 2 else { return }
    // Resume at the first step (within the first 2 s of walking), pause about 2 s after the last
    // step (the walk ends at 12 s; the detector may confirm the last step up to 2 s late).
    XCTAssertEqual(all[0].date.timeIntervalSince(HistoryFixture.anchor), 2, accuracy: 2)
    XCTAssertEqual(all[1].date.timeIntervalSince(HistoryFixture.anchor), 14, accuracy: 2.5)
  }

  /// A source that ends less than the pause delay after the last step (the built-in `walk`
  /// scenario rests 1 s after walking, a recording cut while walking): no later sample judged
  /// the pause, and the events ended on the resume, as if the person walked on.
  func testAWalkStillInProgressWhenTheSourceEndsPauses() {
    let scenario = HistoryFixture.walkScenario(restBefore: 1, walk: 10, restAfter: 0.5)
    // The pause is the last event, sent at the source's end.
    let all = pedestrianEvents(over: scenario, expecting: 2)
    XCTAssertEqual(all.map(\.type), [.resume, .pause])
    guard all.count == 2 else { return }
    // At the end of the source (11.5 s) at the latest, and not before the resume.
    XCTAssertLessThanOrEqual(
      all[1].date.timeIntervalSince(HistoryFixture.anchor), scenario.segmentsDuration + 0.02)
    XCTAssertGreaterThanOrEqual(all[1].date, all[0].date)
  }

  func testContinuousWalkingHasNoPauseWhileTheDetectorConfirmsABout() throws {
    // The stairs scenario walks on from the corridor onto the stairs at 12 s without stopping;
    // there the detector drops out of its bout and confirms the next one late, and the pause
    // judged from the last reported step came out as a pause and a resume both at 13.77 s. Two
    // walks with a 5 s rest between them: two resumes and two pauses, nothing else.
    // The last pause comes at the source's end.
    let all = pedestrianEvents(over: try Scenario.named("stairs"), expecting: 4)
    let times = all.map {
      "\($0.type == .pause ? "pause" : "resume")@\($0.date.timeIntervalSince(HistoryFixture.anchor))"
    }
    XCTAssertEqual(all.map(\.type), [.resume, .pause, .resume, .pause], "\(times)")
    // The rest between the walks is 46–51 s.
    if all.count == 4 {
      XCTAssertGreaterThan(all[1].date, HistoryFixture.date(46), "\(times)")
      XCTAssertLessThan(all[2].date, HistoryFixture.date(53), "\(times)")
    }
  }

  func testAsyncSequenceDeliversTheSameUpdatesAndEndsWithTheSource() async {
    let clock = VirtualClock()
    let scenario = HistoryFixture.walkScenario(walk: 10)
    let pedometer = CMPedometer(
      backend: HistoryFixture.history(HistoryFixture.player(scenario, clock: clock)))
    let updates = pedometer.updates(from: HistoryFixture.anchor)
    let events = pedometer.eventUpdates()
    clock.advance(by: scenario.segmentsDuration + 1)
    var steps: [Int] = []
    for await data in updates { steps.append(data.numberOfSteps.intValue) }
    var types: [CMPedometerEventType] = []
    for await event in events { types.append(event.type) }
    XCTAssertNil(updates.error)
    XCTAssertGreaterThan(steps.count, 1)
    XCTAssertEqual(steps, steps.sorted())
    XCTAssertEqual(types, [.resume, .pause])
    // Started after the source finished: the steps since the start date, then the end (which
    // used to come first, synchronously as the sequence subscribed, and end it empty).
    var late: [Int] = []
    for await data in pedometer.updates(from: HistoryFixture.anchor) {
      late.append(data.numberOfSteps.intValue)
    }
    XCTAssertEqual(late, steps.last.map { [$0] })
  }

  func testWithoutAnAccelerometerEverythingReportsNotAvailable() async {
    let clock = VirtualClock()
    let pedometer = CMPedometer(
      backend: HistoryFixture.history(HistoryFixture.gyroscopeOnly(clock: clock)))
    XCTAssertFalse(CMPedometer.countsSteps(.gyroscope))
    XCTAssertTrue(CMPedometer.countsSteps(.accelerometer))
    let (data, error) = query(pedometer, HistoryFixture.anchor, HistoryFixture.date(1))
    XCTAssertNil(data)
    XCTAssertEqual(coreMotionCode(error), Int(CMErrorMotionActivityNotAvailable.rawValue))
    let errors = Collector<Int?>()
    pedometer.startUpdates(from: HistoryFixture.anchor) { data, error in
      XCTAssertNil(data)
      errors.append(coreMotionCode(error))
    }
    clock.advance(by: 5)
    drain(pedometer.handlerQueue)
    pedometer.stopUpdates()
    XCTAssertEqual(errors.all, [Int(CMErrorMotionActivityNotAvailable.rawValue)])
    let sequence = pedometer.updates(from: HistoryFixture.anchor)
    for await _ in sequence { XCTFail("no data without an accelerometer") }
    XCTAssertEqual(coreMotionCode(sequence.error), Int(CMErrorMotionActivityNotAvailable.rawValue))
  }

  func testClassAvailabilityFollowsTheDefaultSource() {
    let sensors = SourceFactory.defaultSource.availableSensors
    XCTAssertEqual(CMPedometer.isStepCountingAvailable(), sensors.contains(.accelerometer))
    XCTAssertEqual(CMPedometer.isDistanceAvailable(), sensors.contains(.accelerometer))
    XCTAssertEqual(CMPedometer.isPaceAvailable(), sensors.contains(.accelerometer))
    XCTAssertEqual(CMPedometer.isCadenceAvailable(), sensors.contains(.accelerometer))
    XCTAssertEqual(
      CMPedometer.isPedometerEventTrackingAvailable(), sensors.contains(.accelerometer))
    XCTAssertEqual(
      CMPedometer.isFloorCountingAvailable(),
      PressureAltitudeAdapter.countsFloors && sensors.contains(.barometer))
    XCTAssertEqual(CMPedometer.authorizationStatus(), .authorized)
  }
}
