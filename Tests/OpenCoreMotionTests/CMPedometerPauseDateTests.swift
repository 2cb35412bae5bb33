// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// When a pedometer pause is dated. A walk pauses once no step has come for the pause delay
/// (2 s); it is judged from the last step's report, which comes a little after the step (the
/// detector finalizes a peak only once the next samples show it was one) and sometimes seconds
/// after it (a bout's first steps, the gyroscope's hidden steps on pocket stairs). Until
/// 2026-12-02 the pause was dated from the report too, so a step that came more than the pause
/// delay after the last one, but before its report plus the delay, was dated before the pause:
/// its resume was then dated at the pause (4 of the 6 such pairs left on MotionSense's 210
/// recordings).
final class CMPedometerPauseDateTests: XCTestCase {
  func testAPauseIsDatedThePauseDelayAfterTheLastStepItself() {
    let clock = VirtualClock()
    let scenario = HistoryFixture.walkScenario(restBefore: 1, walk: 10, restAfter: 6)
    let history = HistoryFixture.history(HistoryFixture.player(scenario, clock: clock))
    let events = Collector<MotionHistoryEvent>()
    let subscription = history.subscribe { events.append($0) }
    defer { subscription.cancel() }
    clock.advance(by: scenario.segmentsDuration + 1)
    // A failure bound only: the player delivers on its own thread.
    let deadline = Date().addingTimeInterval(20)
    func pauses() -> [PedestrianEventRecord] {
      events.all.compactMap {
        guard case .pedestrian(let record) = $0, record.isPause else { return nil }
        return record
      }
    }
    while pauses().isEmpty, Date() < deadline { usleep(10_000) }
    let steps = events.all.compactMap { event -> StepRecord? in
      guard case .step(let record) = event else { return nil }
      return record
    }
    guard let pause = pauses().first, let lastStep = steps.last else {
      return XCTFail("no pause, or no step, in \(events.count) events")
    }
    XCTAssertEqual(pauses().count, 1)
    // Within a sample (10 ms) of the last step plus the pause delay. Dated from the report, it
    // was 2.40 s after the step here (the last step reported 0.40 s after it).
    XCTAssertEqual(
      pause.date.timeIntervalSince(lastStep.date), 2, accuracy: 0.011,
      "last step at \(lastStep.timestamp) s")
  }
}
