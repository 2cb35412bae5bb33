// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// The in-process history's storage: window totals, active time, floors, retention; sharing and
/// source failures.
final class MotionHistoryLedgerTests: XCTestCase {
  private func date(_ t: Double) -> Date { HistoryFixture.date(t) }

  func testWindowTotalsActiveTimeAndFloors() {
    var ledger = StepLedger(activeGapLimit: 2, retention: 7 * 86_400)
    // Ten steps 0.5 s apart (0 … 4.5 s), a 10 s gap, ten more (14.5 … 19 s); 0.7 m each.
    let firstTimes: [Double] = (0..<10).map { Double($0) * 0.5 }
    let secondTimes: [Double] = (0..<10).map { 14.5 + Double($0) * 0.5 }
    let times = firstTimes + secondTimes
    for t in times {
      ledger.append(StepRecord(date: date(t), timestamp: t, distance: 0.7), cadence: 2)
    }
    ledger.append(FloorRecord(date: date(5), ascended: 1, descended: 0))
    ledger.append(FloorRecord(date: date(18), ascended: 2, descended: 1))

    let whole = ledger.summary(from: date(0), to: date(100), countsFloors: true)
    XCTAssertEqual(whole.numberOfSteps, 20)
    XCTAssertEqual(whole.distance, 14, accuracy: 1e-9)
    // Walking time: 9 gaps of 0.5 s in each bout; the 10 s gap is a pause.
    XCTAssertEqual(whole.activeDuration, 9, accuracy: 1e-9)
    XCTAssertEqual(whole.floorsAscended, 3)
    XCTAssertEqual(whole.floorsDescended, 1)
    XCTAssertNil(whole.recentCadence, "the last step is more than 2 s before the end of the window")

    // Both ends are included; a window's active time counts only gaps inside it.
    let firstBout = ledger.summary(from: date(0), to: date(4.5), countsFloors: true)
    XCTAssertEqual(firstBout.numberOfSteps, 10)
    XCTAssertEqual(firstBout.activeDuration, 4.5, accuracy: 1e-9)
    XCTAssertEqual(firstBout.floorsAscended, 0)
    XCTAssertEqual(firstBout.recentCadence, 2)
    XCTAssertEqual(firstBout.recentStride, 0.7)
    let secondFloor = ledger.summary(from: date(6), to: date(18), countsFloors: true)
    XCTAssertEqual(secondFloor.floorsAscended, 2)
    XCTAssertEqual(secondFloor.floorsDescended, 1)
    XCTAssertNil(ledger.summary(from: date(0), to: date(100), countsFloors: false).floorsAscended)
    XCTAssertEqual(ledger.summary(from: date(5), to: date(1), countsFloors: true).numberOfSteps, 0)
  }

  /// The current cadence lasts while the walk has not paused: until ``StepLedger/activeGapLimit``
  /// after the last step was reported, not after its own date (the detector confirms steps up to
  /// about 2 s after them), and judged no later than what the detector has processed.
  func testTheCurrentCadenceLastsUntilAPauseAfterTheLastStepWasReported() {
    var ledger = StepLedger(activeGapLimit: 2, retention: 7 * 86_400)
    // Steps 0.5 s apart (0 … 3 s), each confirmed 2.5 s after it (a slow walk's first steps).
    for t in stride(from: 0.0, through: 3, by: 0.5) {
      ledger.append(
        StepRecord(date: date(t), timestamp: t, distance: 0.7), cadence: 2,
        reportedDate: date(t + 2.5))
    }
    func cadence(at end: Double, observedUntil observed: Double? = nil) -> Double? {
      ledger.summary(
        from: date(0), to: date(end), countsFloors: false, observedUntil: observed.map(date)
      ).recentCadence
    }
    // At the last report (5.5 s), 2.5 s after the step: still walking.
    XCTAssertEqual(cadence(at: 5.5), 2)
    XCTAssertEqual(cadence(at: 4), 2, "before the last step was reported")
    XCTAssertEqual(cadence(at: 7.4), 2)
    // A real pause: 2 s without a step reported.
    XCTAssertNil(cadence(at: 7.5))
    XCTAssertNil(cadence(at: 100))
    // A window ending after what the detector has processed is judged at the detector's clock:
    // it cannot know of a pause later than that.
    XCTAssertEqual(cadence(at: 100, observedUntil: 6), 2)
    XCTAssertNil(cadence(at: 100, observedUntil: 8))
    XCTAssertNil(cadence(at: 8, observedUntil: 100))
  }

  /// Floors that late steps showed to be walked arrive dated before floors counted since: they
  /// are filed under their own date, and every window's totals stay the sums of the floors
  /// dated in it.
  func testFloorsDatedBeforeLaterOnesAreFiledInOrder() {
    var ledger = StepLedger(activeGapLimit: 2, retention: 7 * 86_400)
    let floors: [(t: Double, up: Int, down: Int)] = [
      (30, 1, 0), (50, 0, 2), (20, 2, 0), (40, 1, 1), (10, 0, 1), (60, 3, 0), (50, 1, 0),
    ]
    for floor in floors {
      ledger.append(FloorRecord(date: date(floor.t), ascended: floor.up, descended: floor.down))
    }
    // Every window with ends on and between the dates.
    let ends = stride(from: 0.0, through: 70, by: 5).map { $0 }
    for start in ends {
      for end in ends where end >= start {
        let summary = ledger.summary(from: date(start), to: date(end), countsFloors: true)
        let inside = floors.filter { $0.t >= start && $0.t <= end }
        XCTAssertEqual(
          summary.floorsAscended, inside.reduce(0) { $0 + $1.up }, "window \(start)…\(end)")
        XCTAssertEqual(
          summary.floorsDescended, inside.reduce(0) { $0 + $1.down }, "window \(start)…\(end)")
      }
    }
  }

  func testOldEntriesAreDroppedAfterTheRetention() {
    var ledger = StepLedger(activeGapLimit: 2, retention: 100)
    for i in 0..<1000 {
      ledger.append(
        StepRecord(date: date(Double(i) * 10), timestamp: Double(i) * 10, distance: 1), cadence: nil
      )
    }
    // Kept: the last 100 s, plus at most an hour of slack before batches are dropped.
    XCTAssertLessThanOrEqual(ledger.stepCount, 10 + 360 + 1)
    XCTAssertEqual(
      ledger.summary(from: date(9_890), to: date(9_990), countsFloors: false).numberOfSteps, 11)
    XCTAssertEqual(
      ledger.summary(from: date(9_890), to: date(9_990), countsFloors: false).distance, 11,
      accuracy: 1e-9)
  }

  func testObjectsOfOneSourceShareOneHistory() {
    let clock = VirtualClock()
    let source = HistoryFixture.player(HistoryFixture.walkScenario(), clock: clock)
    let pedometer = CMPedometer(source: source)
    let activity = CMMotionActivityManager(source: source)
    let altimeter = CMAltimeter(source: source)
    let recorder = CMSensorRecorder(source: source)
    XCTAssertTrue(pedometer.backend === activity.backend)
    XCTAssertTrue(pedometer.backend === altimeter.backend)
    XCTAssertTrue(pedometer.backend === recorder.backend)
    let other = CMPedometer(
      source: HistoryFixture.player(HistoryFixture.walkScenario(), clock: clock))
    XCTAssertFalse(pedometer.backend === other.backend)
  }

  func testSourceFailuresReachHandlersAsCMErrorUnknown() {
    let clock = VirtualClock()
    let source = StreamPlayer(FailingStream(), pacing: .virtual(clock))
    let pedometer = CMPedometer(backend: HistoryFixture.history(source))
    let errors = Collector<Int?>()
    pedometer.startUpdates(from: HistoryFixture.anchor) { _, error in
      errors.append(coreMotionCode(error))
    }
    clock.advance(by: 1)
    drain(pedometer.handlerQueue)
    pedometer.stopUpdates()
    XCTAssertEqual(errors.all, [Int(CMErrorUnknown.rawValue)])
  }
}
