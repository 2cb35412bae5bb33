// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// Live pedometer updates are cumulative: none has fewer steps or floors than the one before,
/// whatever order the history's events come in. A step the riding gate gives back late is dated
/// before floors counted in the meantime; an update ending at that step's date left them out.
/// A history scripted by hand, so that the events' order and dates are exact.
final class CMPedometerLateEventTests: XCTestCase {
  func testAStepGivenBackLateDoesNotTakeBackFloorsAlreadyReported() throws {
    let history = ScriptedHistory()
    let updates = LiveUpdates(history)
    defer { updates.stop() }

    // A step at 10 s; a floor walked at 15 s and counted at 30 s; then a step of 12 s, given
    // back late by the riding gate.
    history.step(at: 10)
    history.floor(walkedAt: 15, countedAt: 30)
    history.step(at: 12)

    let received = updates.wait(for: 3)
    XCTAssertEqual(received.count, 3)
    XCTAssertEqual(received.map(\.numberOfSteps.intValue), [1, 1, 2])
    XCTAssertEqual(
      received.map { $0.floorsAscended?.intValue ?? -1 }, [0, 1, 1],
      "a later update must not take back the floor")
    let ends = received.map(\.endDate)
    XCTAssertEqual(ends, ends.sorted(), "updates end in order")
  }

  /// The same when the floor was reported by the opening update (the totals already in the
  /// history when updates start, up to now), and the late step comes after it: an app that
  /// starts updates while the riding gate holds a walk's steps.
  func testAStepGivenBackLateDoesNotTakeBackFloorsOfTheOpeningUpdate() throws {
    let history = ScriptedHistory()
    history.step(at: 10)
    history.floor(walkedAt: 15, countedAt: 30)
    let updates = LiveUpdates(history)
    defer { updates.stop() }
    _ = updates.wait(for: 1)
    history.step(at: 12)

    let received = updates.wait(for: 2)
    XCTAssertEqual(received.count, 2)
    XCTAssertEqual(received.map(\.numberOfSteps.intValue), [1, 2])
    XCTAssertEqual(
      received.map { $0.floorsAscended?.intValue ?? -1 }, [1, 1],
      "a later update must not take back the floor")
    let ends = received.map(\.endDate)
    XCTAssertEqual(ends, ends.sorted(), "updates end in order")
  }
}

/// A `CMPedometer`'s live updates from source time 0 of `history`, as they arrive.
private final class LiveUpdates {
  private let pedometer: CMPedometer
  private let received = Locked<[CMPedometerData]>([])

  init(_ history: ScriptedHistory) {
    pedometer = CMPedometer(backend: history)
    pedometer.startUpdates(from: HistoryFixture.date(0)) { [received] data, error in
      XCTAssertNil(error)
      if let data { received.withLock { $0.append(data) } }
    }
  }

  /// The updates so far, once there are `count` of them or 30 s have passed.
  func wait(for count: Int) -> [CMPedometerData] {
    let deadline = Date().addingTimeInterval(30)
    while received.withLock({ $0.count }) < count, Date() < deadline { usleep(10_000) }
    return received.withLock { $0 }
  }

  func stop() { pedometer.stopUpdates() }
}

/// A history whose steps and floors the test adds by hand, each announced to the subscribers
/// as it is added (as ``InProcessMotionHistory`` announces what it counts).
private final class ScriptedHistory: StepsAndActivityOnlyHistory, @unchecked Sendable {
  // @unchecked: `state` is behind its lock; the handlers are called outside it, one event at a
  // time (the test adds events from one thread).
  private let state = Locked<
    (ledger: StepLedger, handlers: [UInt64: @Sendable (MotionHistoryEvent) -> Void], next: UInt64)
  >((StepLedger(activeGapLimit: 2, retention: 7 * 86_400), [:], 0))

  var name: String { "scripted" }
  var availableSensors: SensorSet { [.accelerometer, .barometer] }
  var countsFloors: Bool { true }

  func pedometerSummary(from start: Date, to end: Date) -> PedometerSummary {
    state.withLock { $0.ledger.summary(from: start, to: end, countsFloors: true) }
  }
  func activities(from start: Date, to end: Date) -> [ActivityRecord] { [] }
  var currentActivity: ActivityRecord? { nil }

  func subscribe(
    _ handler: @escaping @Sendable (MotionHistoryEvent) -> Void
  ) -> SourceSubscription {
    let id = state.withLock { s -> UInt64 in
      s.next += 1
      s.handlers[s.next] = handler
      return s.next
    }
    return SourceSubscription { [weak self] in
      _ = self?.state.withLock { $0.handlers.removeValue(forKey: id) }
    }
  }

  /// Counts a step at `t` s (its own date and timestamp).
  func step(at t: Double) {
    let record = StepRecord(date: HistoryFixture.date(t), timestamp: t, distance: 0.7)
    announce(.step(record)) { $0.append(record, cadence: nil) }
  }

  /// Counts a floor up, walked at `walked` s and counted at `counted` s.
  func floor(walkedAt walked: Double, countedAt counted: Double) {
    let record = FloorRecord(
      date: HistoryFixture.date(walked), ascended: 1, descended: 0,
      countedDate: HistoryFixture.date(counted))
    announce(.floors(record)) { $0.append(record) }
  }

  private func announce(_ event: MotionHistoryEvent, adding: (inout StepLedger) -> Void) {
    let handlers = state.withLock { s in
      adding(&s.ledger)
      return s.handlers.sorted { $0.key < $1.key }.map(\.value)
    }
    for handler in handlers { handler(event) }
  }
}
