// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import MotionSensors
import SourceComposition
import XCTest

@testable import OpenCoreMotion

/// CMMotionActivityManager's API semantics on the simulator: the current activity at once, then
/// only changes; ordered queries; CMErrorUnknown without samples; availability. The classifier's
/// accuracy belongs to its own tests.
final class CMMotionActivityManagerTests: XCTestCase {
  private func query(
    _ manager: CMMotionActivityManager, _ start: Date, _ end: Date
  ) -> ([CMMotionActivity]?, (any Error)?) {
    let queue = makeSerialQueue()
    let result = Locked<([CMMotionActivity]?, (any Error)?)>((nil, nil))
    let done = expectation(description: "query")
    manager.queryActivityStarting(from: start, to: end, to: queue) { activities, error in
      result.withLock { $0 = (activities, error) }
      done.fulfill()
    }
    wait(for: [done], timeout: 30)
    return result.withLock { $0 }
  }

  func testCurrentActivityComesAtOnceThenOnlyChanges() {
    let clock = VirtualClock()
    let scenario = HistoryFixture.walkScenario(restBefore: 6, walk: 12, restAfter: 6)
    let manager = CMMotionActivityManager(
      backend: HistoryFixture.history(HistoryFixture.player(scenario, clock: clock)))
    clock.advance(by: 4)
    let queue = makeSerialQueue()
    let received = Collector<CMMotionActivity>()
    manager.startActivityUpdates(to: queue) { activity in activity.map(received.append) }
    drain(queue)
    // Without any further sample: the activity in force now.
    XCTAssertEqual(received.count, 1)
    let first = received.all.first
    XCTAssertNotNil(first)
    XCTAssertLessThanOrEqual(first?.startDate ?? .distantFuture, HistoryFixture.date(4))

    clock.advance(by: scenario.segmentsDuration)
    drain(queue)
    manager.stopActivityUpdates()
    let all = received.all
    XCTAssertGreaterThan(all.count, 1, "still, walking, still: at least one change")
    XCTAssertTrue(all.contains { $0.walking })
    for (a, b) in zip(all, all.dropFirst()) {
      XCTAssertLessThanOrEqual(a.startDate, b.startDate)
      let same =
        a.stationary == b.stationary && a.walking == b.walking && a.running == b.running
        && a.automotive == b.automotive && a.cycling == b.cycling && a.unknown == b.unknown
        && a.confidence == b.confidence
      XCTAssertFalse(same, "an update that is not a change: \(a) then \(b)")
    }
    // Dates follow the source timestamps on the fixture's timeline.
    for activity in all {
      XCTAssertEqual(
        activity.startDate.timeIntervalSince(HistoryFixture.anchor), activity.timestamp,
        accuracy: 1e-6)
    }
  }

  func testQueryIsOrderedAndStartsWithTheActivityInForce() {
    let clock = VirtualClock()
    let scenario = HistoryFixture.walkScenario(restBefore: 6, walk: 12, restAfter: 6)
    let manager = CMMotionActivityManager(
      backend: HistoryFixture.history(HistoryFixture.player(scenario, clock: clock)))
    clock.advance(by: scenario.segmentsDuration + 1)
    let (whole, error) = query(manager, HistoryFixture.anchor, HistoryFixture.date(60))
    XCTAssertNil(error)
    let activities = whole ?? []
    XCTAssertGreaterThan(activities.count, 1)
    XCTAssertEqual(activities.map(\.startDate), activities.map(\.startDate).sorted())
    XCTAssertEqual(
      activities.first?.startDate, HistoryFixture.anchor, "the activity at the start of observation"
    )

    // A window inside one activity: just the activity in force, which began before the window.
    let last = activities.last!
    let inside = last.startDate.addingTimeInterval(0.5)
    let (one, _) = query(manager, inside, inside.addingTimeInterval(0.1))
    XCTAssertEqual(one?.count, 1)
    XCTAssertEqual(one?.first?.startDate, last.startDate)
  }

  /// A NaN date passed the reversed-range check (`start > end` is false with it) and the query
  /// answered `CMErrorUnknown` or the whole history; a date that is not finite is an invalid
  /// parameter.
  func testQueryWithANonFiniteDateIsAnInvalidParameter() {
    let clock = VirtualClock()
    let manager = CMMotionActivityManager(
      backend: HistoryFixture.history(
        HistoryFixture.player(HistoryFixture.walkScenario(), clock: clock)))
    clock.advance(by: 5)
    let nan = Date(timeIntervalSinceReferenceDate: .nan)
    let infinity = Date(timeIntervalSinceReferenceDate: .infinity)
    for (start, end) in [
      (nan, HistoryFixture.date(5)), (HistoryFixture.anchor, nan),
      (HistoryFixture.anchor, infinity),
      (Date(timeIntervalSinceReferenceDate: -.infinity), HistoryFixture.date(5)),
    ] {
      let (activities, error) = query(manager, start, end)
      XCTAssertNil(activities)
      XCTAssertEqual(
        coreMotionCode(error), Int(CMErrorInvalidParameter.rawValue), window(start, end))
    }
    let (all, error) = query(manager, .distantPast, .distantFuture)
    XCTAssertNil(error)
    XCTAssertFalse(all?.isEmpty ?? true)
  }

  func testQueryWithoutSamplesIsCMErrorUnknown() {
    let clock = VirtualClock()
    let manager = CMMotionActivityManager(
      backend: HistoryFixture.history(
        HistoryFixture.player(HistoryFixture.walkScenario(), clock: clock)))
    clock.advance(by: 3)
    let (activities, error) = query(manager, HistoryFixture.date(-100), HistoryFixture.date(-50))
    XCTAssertNil(activities)
    XCTAssertEqual(coreMotionCode(error), Int(CMErrorUnknown.rawValue))
    let (_, reversed) = query(manager, HistoryFixture.date(2), HistoryFixture.date(1))
    XCTAssertEqual(coreMotionCode(reversed), Int(CMErrorInvalidParameter.rawValue))
    // A window after the latest sample (about 3 s): the activity in force now is not known to
    // last until then.
    let (future, futureError) = query(
      manager, HistoryFixture.date(10), HistoryFixture.date(20))
    XCTAssertNil(future)
    XCTAssertEqual(coreMotionCode(futureError), Int(CMErrorUnknown.rawValue))
    // A window that reaches past the latest sample still has the activity observed in it.
    let (reaching, reachingError) = query(
      manager, HistoryFixture.date(1), HistoryFixture.date(20))
    XCTAssertNil(reachingError)
    XCTAssertFalse(reaching?.isEmpty ?? true)
  }

  /// The activity in force when updates start is offered after the live subscription exists, so
  /// a change can go out first; the older activity must then not follow it (the app would take
  /// it for the current one). It used to: its earliest-timestamp trick did not stop the channel,
  /// whose schedule starts again when time goes back.
  func testTheOpeningActivityIsDroppedWhenAChangeWentOutFirst() {
    let channel = UpdateChannel<CMMotionActivity>(interval: 0)
    let received = Collector<CMMotionActivity>()
    let sink = UpdateChannel<CMMotionActivity>.Sink.immediate { activity, _ in
      activity.map(received.append)
    }
    let current = CMMotionActivity(
      stationary: true, confidence: .high, startDate: HistoryFixture.date(0), timestamp: 0)
    let change = CMMotionActivity(
      walking: true, confidence: .medium, startDate: HistoryFixture.date(5), timestamp: 5)

    var generation = channel.begin(sink: sink, nominalSourcePeriod: 0.01)
    channel.deliver(change, timestamp: 5, generation: generation)
    channel.deliverOpening(current, generation: generation)
    XCTAssertEqual(received.all.map(\.walking), [true], "only the change")

    // A new run with nothing delivered yet: the opening activity first, then the change.
    generation = channel.begin(sink: sink, nominalSourcePeriod: 0.01)
    channel.deliverOpening(current, generation: generation)
    channel.deliver(change, timestamp: 5, generation: generation)
    XCTAssertEqual(received.all.map(\.walking), [true, false, true])
    channel.end()
  }

  /// The history appends a change before it dispatches it: a start between the two reads the
  /// change as the activity in force (the opening update) and then receives it live. It was
  /// delivered twice; Apple gives the current activity, then only changes.
  func testAChangeAlreadyInForceAtTheStartIsNotDeliveredAgain() {
    let walking = ActivityRecord(
      estimate: ActivityEstimate(walking: true, confidence: .medium, startTime: 5),
      date: HistoryFixture.date(5), timestamp: 5)
    let running = ActivityRecord(
      estimate: ActivityEstimate(running: true, confidence: .high, startTime: 9),
      date: HistoryFixture.date(9), timestamp: 9)
    let history = ActivityBetweenAppendAndDispatch(current: walking)
    let manager = CMMotionActivityManager(backend: history)
    let queue = makeSerialQueue()
    let received = Collector<CMMotionActivity>()
    manager.startActivityUpdates(to: queue) { activity in activity.map(received.append) }
    history.dispatch(.activity(walking))  // the dispatch that was under way at the start
    history.dispatch(.activity(running))
    drain(queue)
    manager.stopActivityUpdates()
    XCTAssertEqual(received.all.map(\.walking), [true, false])
    XCTAssertEqual(received.all.map(\.running), [false, true])
  }

  func testSecondStartReplacesTheHandlerAndStopEndsDelivery() {
    let clock = VirtualClock()
    let scenario = HistoryFixture.walkScenario(restBefore: 6, walk: 12, restAfter: 6)
    let manager = CMMotionActivityManager(
      backend: HistoryFixture.history(HistoryFixture.player(scenario, clock: clock)))
    let queue = makeSerialQueue()
    let first = Collector<CMMotionActivity>()
    let second = Collector<CMMotionActivity>()
    manager.startActivityUpdates(to: queue) { $0.map(first.append) }
    clock.advance(by: 3)
    drain(queue)
    let firstCount = first.count
    manager.startActivityUpdates(to: queue) { $0.map(second.append) }
    clock.advance(by: 10)
    drain(queue)
    manager.stopActivityUpdates()
    let secondCount = second.count
    clock.advance(by: 20)
    drain(queue)
    XCTAssertEqual(first.count, firstCount)
    XCTAssertGreaterThan(secondCount, 0)
    XCTAssertEqual(second.count, secondCount)
  }

  func testWithoutAnAccelerometerNothingIsAvailable() async {
    let clock = VirtualClock()
    let manager = CMMotionActivityManager(
      backend: HistoryFixture.history(HistoryFixture.gyroscopeOnly(clock: clock)))
    XCTAssertFalse(CMMotionActivityManager.classifies(.gyroscope))
    let queue = makeSerialQueue()
    let received = Collector<CMMotionActivity?>()
    manager.startActivityUpdates(to: queue) { received.append($0) }
    clock.advance(by: 3)
    drain(queue)
    manager.stopActivityUpdates()
    XCTAssertEqual(received.count, 0, "the handler has no error parameter: nothing is delivered")
    let (_, error) = query(manager, HistoryFixture.anchor, HistoryFixture.date(3))
    XCTAssertEqual(coreMotionCode(error), Int(CMErrorMotionActivityNotAvailable.rawValue))
    let sequence = manager.activityUpdates()
    for await _ in sequence { XCTFail("no activity without an accelerometer") }
    XCTAssertEqual(coreMotionCode(sequence.error), Int(CMErrorMotionActivityNotAvailable.rawValue))
    XCTAssertEqual(
      CMMotionActivityManager.isActivityAvailable(),
      SourceFactory.defaultSource.availableSensors.contains(.accelerometer))
  }

  func testAsyncSequenceEndsWithTheSource() async {
    let clock = VirtualClock()
    let scenario = HistoryFixture.walkScenario(restBefore: 6, walk: 12, restAfter: 6)
    let manager = CMMotionActivityManager(
      backend: HistoryFixture.history(HistoryFixture.player(scenario, clock: clock)))
    let sequence = manager.activityUpdates()
    clock.advance(by: scenario.segmentsDuration + 1)
    var activities: [CMMotionActivity] = []
    for await activity in sequence { activities.append(activity) }
    XCTAssertNil(sequence.error)
    XCTAssertGreaterThan(activities.count, 1)
    XCTAssertTrue(activities.contains { $0.walking })
    // A sequence started after the source finished still gives the activity in force, as
    // startActivityUpdates does, then ends. (The end used to come first, synchronously as the
    // sequence subscribed, and the sequence ended empty.)
    var late: [CMMotionActivity] = []
    for await activity in manager.activityUpdates() { late.append(activity) }
    XCTAssertEqual(late.map(\.startDate), activities.last.map { [$0.startDate] })
  }
}

/// A history whose latest activity change is appended (so it is the activity in force) but not
/// yet dispatched: the test dispatches it, as the history's thread would a moment later.
private final class ActivityBetweenAppendAndDispatch: StepsAndActivityOnlyHistory,
  @unchecked Sendable
{
  // @unchecked: `handlers` is behind its lock; `current` is set once, at creation.
  private let handlers = Locked<[@Sendable (MotionHistoryEvent) -> Void]>([])
  let currentActivity: ActivityRecord?

  init(current: ActivityRecord) { currentActivity = current }

  var name: String { "between append and dispatch" }
  var availableSensors: SensorSet { [.accelerometer] }
  var countsFloors: Bool { false }
  func pedometerSummary(from start: Date, to end: Date) -> PedometerSummary {
    PedometerSummary(startDate: start, endDate: end)
  }
  func activities(from start: Date, to end: Date) -> [ActivityRecord] { [] }
  func subscribe(
    _ handler: @escaping @Sendable (MotionHistoryEvent) -> Void
  ) -> SourceSubscription {
    handlers.withLock { $0.append(handler) }
    return SourceSubscription {}
  }

  /// Hands `event` to every subscriber.
  func dispatch(_ event: MotionHistoryEvent) {
    for handler in handlers.withLock({ $0 }) { handler(event) }
  }
}
