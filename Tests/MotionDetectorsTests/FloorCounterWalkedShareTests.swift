// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import XCTest

/// A change is walked when most of its *height* was moved while walking. Judged by time, as it
/// was until 2026-11-29,
/// the decision was made mostly after the change had ended: the level track lags a change by its
/// slope window, its median and its settling time (8–10 s in all), and what the person did then
/// decided it. A review's synthetic recordings in the IPIN layout showed the three cases below:
/// a lift ride whose passenger walks out as the doors open counted a floor, and a quick flight
/// followed by standing counted none.
final class FloorCounterWalkedShareTests: XCTestCase {
  /// Readings at `rate` Hz from `start` to `end` s of `height(t)` m, with a step every 0.55 s
  /// while `walking(t)`, each noted when it happens.
  private func feed(
    _ counter: inout FloorCounter, from start: Double, to end: Double, rate: Double = 8,
    walking: (Double) -> Bool, height: (Double) -> Double
  ) {
    var nextStep = start
    let count = Int(((end - start) * rate).rounded())
    for index in 0..<count {
      let time = start + Double(index) / rate
      while nextStep <= time {
        if walking(nextStep) { counter.noteStep(time: nextStep) }
        nextStep += 0.55
      }
      _ = counter.process(
        time: time, pressure: FloorCounterRobustnessTests.pressure(atHeight: height(time)))
    }
  }

  /// A height ramp from `from` m to `to` m between `start` and `end` s (smoothstep ends, as a
  /// lift car or a flight of stairs starts and stops).
  private func ramp(
    _ time: Double, start: Double, end: Double, from: Double, to: Double
  ) -> Double {
    let x = Swift.min(1, Swift.max(0, (time - start) / (end - start)))
    return from + (to - from) * x * x * (3 - 2 * x)
  }

  /// Walk to a lift, stand in it for `before` s, ride 3 m in 7 s, and walk out `after` s after
  /// the car stops; then back down the same way. Lifts do not count, however promptly the
  /// passenger walks out (before: 9 of 9 such rides counted a floor when walking resumed 1 s
  /// after the car stopped).
  func testALiftRideLeftAtOnceCountsNoFloor() {
    for before in [2.0, 4.0] {
      for after in [0.5, 1.0, 2.0] {
        var counter = FloorCounter()
        let upStart = 30 + before
        let upEnd = upStart + 7
        let downStart = upEnd + after + 40 + before
        let downEnd = downStart + 7
        func riding(_ t: Double) -> Bool {
          (upStart - before..<upEnd + after).contains(t)
            || (downStart - before..<downEnd + after).contains(t)
        }
        feed(&counter, from: 0, to: downEnd + 60, walking: { !riding($0) }) { t in
          self.ramp(t, start: upStart, end: upEnd, from: 0, to: 3)
            - self.ramp(t, start: downStart, end: downEnd, from: 0, to: 3)
        }
        XCTAssertEqual(counter.floorsAscended, 0, "before \(before) s, after \(after) s")
        XCTAssertEqual(counter.floorsDescended, 0, "before \(before) s, after \(after) s")
      }
    }
  }

  /// A quick flight of one floor (3 m in `duration` s, 0.3–0.5 m/s), then standing for 20 s;
  /// down again the same way. Each counts (before: flights of 6 s counted neither way, 8 s only
  /// the way down).
  func testAQuickFlightFollowedByStandingCounts() {
    for duration in [6.0, 8.0, 10.0] {
      var counter = FloorCounter()
      let upStart = 30.0
      let upEnd = upStart + duration
      let downStart = upEnd + 20 + 20
      let downEnd = downStart + duration
      func walking(_ t: Double) -> Bool {
        t < upEnd || (upEnd + 20..<downEnd).contains(t)
      }
      feed(&counter, from: 0, to: downEnd + 40, walking: walking) { t in
        self.ramp(t, start: upStart, end: upEnd, from: 0, to: 3)
          - self.ramp(t, start: downStart, end: downEnd, from: 0, to: 3)
      }
      XCTAssertEqual(counter.floorsAscended, 1, "\(duration) s flight")
      XCTAssertEqual(counter.floorsDescended, 1, "\(duration) s flight")
    }
  }

  /// Stairs climbed at the pace of a tower race (0.5 m/s on average) and at a brisk 0.8 m/s count
  /// their two floors.
  func testFastStairsStillCount() {
    for speed in [0.5, 0.8] {
      var counter = FloorCounter()
      let end = 30 + 6 / speed
      feed(&counter, from: 0, to: end + 40, walking: { _ in true }) { t in
        self.ramp(t, start: 30, end: end, from: 0, to: 6)
      }
      XCTAssertEqual(counter.floorsAscended, 2, "\(speed) m/s")
      XCTAssertEqual(counter.floorsDescended, 0, "\(speed) m/s")
    }
  }
}
