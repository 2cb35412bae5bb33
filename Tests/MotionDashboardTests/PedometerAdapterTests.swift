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
    // Standing still while the pressure falls by two floors (a lift), then still: no floor.
    var events: [DashboardEvent] = []
    for index in 0...300 {
      let time = Double(index) * 0.1
      events += adapter.process(
        time: time,
        pressure: StandardAtmosphere.pressure(atAltitude: min(Double(index), 100) * 0.06))
    }
    XCTAssertEqual(adapter.snapshot.floorsAscended, 0)
    XCTAssertEqual(events.filter { $0.kind == "floor" }.count, 0)
    // The altimeter's relative altitude (lightly smoothed): the 6 m once it has settled.
    XCTAssertEqual(adapter.snapshot.relativeAltitude ?? 0, 6, accuracy: 0.05)
  }

  /// The simulated stairs (two floors up, two down, on foot) give the floor events and counts
  /// `CMPedometer` gives for them (the same `FloorCounter`), and the door slam and weather drift
  /// of the simulated barometer give none.
  func testStairsScenarioCountsTheFloorsThePedometerCounts() throws {
    var stream = SimulatedSensorStream(scenario: try Scenario.named("stairs"))
    var adapter = PedometerAdapter()
    var floorEvents: [String] = []
    while let sample = try stream.next() {
      if let force = sample.accelerometer {
        _ = adapter.process(time: sample.timestamp, acceleration: -force / 9.80665)
      }
      if let pressure = sample.pressure {
        floorEvents += adapter.process(time: sample.timestamp, pressure: pressure)
          .filter { $0.kind == "floor" }.map(\.detail)
      }
    }
    XCTAssertEqual(adapter.snapshot.floorsAscended, 2)
    XCTAssertEqual(adapter.snapshot.floorsDescended, 2)
    XCTAssertEqual(floorEvents, ["up", "up", "down", "down"])
  }
}
