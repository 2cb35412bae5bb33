// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import MotionDashboard

/// The dashboard's cadence and pace follow `CMPedometer`'s rule: they go when no step was
/// *reported* for ``PedometerAdapter/walkingTimeout``. Steps come out after they happen (about
/// 0.4 s on the simulated stairs, a limb's strides seconds later), so judged from the step's own
/// time they went 0.4 s early at every stop. (Found by the review of 2026-11-30.)
final class PedometerAdapterCadenceTests: XCTestCase {
  func testCadenceGoesOnlyAfterNoStepWasReportedForTheTimeout() throws {
    // Stairs up and down with the gyroscope, a 5 s rest between them.
    var stream = SimulatedSensorStream(scenario: try Scenario.named("stairs"))
    var adapter = PedometerAdapter()
    var steps = 0
    var lastReport = -Double.infinity
    var reportBefore = -Double.infinity
    var hadCadence = false
    var blanks = 0
    while let sample = try stream.next() {
      let time = sample.timestamp
      if let rate = sample.gyroscope { adapter.process(time: time, rotationRate: rate) }
      guard let force = sample.accelerometer else { continue }
      _ = adapter.process(time: time, acceleration: -force / 9.80665)
      if adapter.snapshot.steps != steps {
        steps = adapter.snapshot.steps
        reportBefore = lastReport
        lastReport = time
      }
      if adapter.snapshot.cadence != nil {
        hadCadence = true
      } else if hadCadence, time - lastReport < PedometerAdapter.walkingTimeout,
        lastReport - reportBefore <= PedometerAdapter.walkingTimeout
      {
        // (The first step after a pause has no cadence yet: one step has none.)
        blanks += 1
      }
    }
    XCTAssertGreaterThan(steps, 100)
    XCTAssertEqual(blanks, 0, "readings without cadence less than the timeout after a step came")
  }
}
