// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import XCTest

/// The one barometer path of the altimeter, the pedometer's floors, the daemon and the dashboard.
final class BarometerTrackerTests: XCTestCase {
  /// A physically impossible reading (a hostile or broken barometer: 1e308 kPa, 0, NaN) is
  /// counted and left out; it used to become the filter's state, and every later altitude was
  /// tens of kilometres off.
  func testImpossiblePressuresAreCountedAndLeftOut() {
    var tracker = BarometerTracker()
    XCTAssertEqual(tracker.process(time: 0, pressure: 101.325)?.altitude ?? .nan, 0, accuracy: 1e-9)
    for (index, absurd) in [1e308, 0, -5, .nan, .infinity, 250].enumerated() {
      XCTAssertNil(tracker.process(time: 1 + Double(index), pressure: absurd), "\(absurd)")
    }
    XCTAssertNil(tracker.process(time: .nan, pressure: 101.3), "a reading at no time")
    XCTAssertEqual(tracker.refusedReadings, 7)
    let after = tracker.process(time: 600, pressure: 101.325)
    XCTAssertEqual(after?.altitude ?? .nan, 0, accuracy: 0.01)
    XCTAssertEqual(after?.pressure ?? .nan, 101.325, accuracy: 0.001)
  }

  /// The tracker is the filter and the counter together: the same altitude and the same floors
  /// as each of them fed alone, on two floors climbed on foot (10 Hz readings, a step every
  /// 0.5 s) and a lift ride of the same height without steps.
  func testItReportsWhatTheFilterAndTheCounterReportAlone() {
    var tracker = BarometerTracker()
    var filter = RelativeAltitudeFilter()
    var counter = FloorCounter()
    // (duration s, rise m, walking): still, stairs up 6 m, still, a lift up 6 m, still.
    let segments = [
      (10.0, 0.0, false), (30, 6, true), (10, 0, false), (20, 6, false), (10, 0, false),
    ]
    var index = 0
    var height = 0.0
    for (duration, rise, walking) in segments {
      for _ in 0..<Int(duration * 10) {
        let time = Double(index) / 10
        if walking, index % 5 == 0 {
          tracker.noteStep(time: time)
          counter.noteStep(time: time)
        }
        let pressure = FloorCounterRobustnessTests.pressure(atHeight: height)
        let reading = tracker.process(time: time, pressure: pressure)
        XCTAssertEqual(reading?.altitude, filter.process(time: time, pressure: pressure))
        XCTAssertEqual(reading?.floors, counter.process(time: time, pressure: pressure))
        height += rise / (duration * 10)
        index += 1
      }
    }
    XCTAssertEqual(tracker.floorsAscended, 2, "the stairs, not the lift")
    XCTAssertEqual(tracker.floorsDescended, 0)
    XCTAssertEqual(tracker.relativeAltitude, 12, accuracy: 0.2)
  }
}
