// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import MotionDashboard

/// The pedometer adapter on the simulator's walk and on synthetic pressure.
final class PedometerAdapterTests: XCTestCase {
  func testWalkScenarioCountsStepsWithCadence() throws {
    var stream = SimulatedSensorStream(scenario: try Scenario.named("walk"))
    var adapter = PedometerAdapter()
    while let sample = try stream.next() {
      guard let force = sample.accelerometer else { continue }
      // Specific force in m/s² (+9.81 up at rest) to Core Motion's g with Apple's sign.
      _ = adapter.process(time: sample.timestamp, acceleration: -force / 9.80665)
    }
    let snapshot = adapter.snapshot
    // 20 s at 1.8 steps/s = 36 steps; the scaffolding detector may miss or add a few (±25 %).
    XCTAssertEqual(Double(snapshot.steps), 36, accuracy: 9, "steps \(snapshot.steps)")
    XCTAssertGreaterThan(snapshot.distance, 0)
  }

  func testFloorsCountOnlyWhileWalking() {
    var adapter = PedometerAdapter()
    // Standing still while the pressure falls by two floors: no floor counted.
    for index in 0...100 {
      let time = Double(index) * 0.1
      _ = adapter.process(
        time: time, pressure: StandardAtmosphere.pressure(atAltitude: Double(index) * 0.06))
    }
    XCTAssertEqual(adapter.snapshot.floorsAscended, 0)
    XCTAssertEqual(adapter.snapshot.relativeAltitude ?? 0, 6, accuracy: 0.01)
  }
}
