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
      let pressure = StandardAtmosphere.pressure(atAltitude: min(Double(index), 100) * 0.06)
      events += adapter.process(time: time, pressure: pressure) ?? []
    }
    XCTAssertEqual(adapter.snapshot.floorsAscended, 0)
    XCTAssertEqual(events.filter { $0.kind == "floor" }.count, 0)
    // The altimeter's relative altitude (lightly smoothed): the 6 m once it has settled.
    XCTAssertEqual(adapter.snapshot.relativeAltitude ?? 0, 6, accuracy: 0.05)
  }

  /// The simulated stairs (two floors up, two down, on foot) give the floor events and counts
  /// `CMPedometer` gives for them (the same `FloorCounter`).
  func testStairsScenarioCountsTheFloorsThePedometerCounts() throws {
    var stream = SimulatedSensorStream(scenario: try Scenario.named("stairs"))
    var adapter = PedometerAdapter()
    var floorEvents: [String] = []
    while let sample = try stream.next() {
      if let force = sample.accelerometer {
        _ = adapter.process(time: sample.timestamp, acceleration: -force / 9.80665)
      }
      if let pressure = sample.pressure {
        floorEvents += (adapter.process(time: sample.timestamp, pressure: pressure) ?? [])
          .filter { $0.kind == "floor" }.map(\.detail)
      }
    }
    XCTAssertEqual(adapter.snapshot.floorsAscended, 2)
    XCTAssertEqual(adapter.snapshot.floorsDescended, 2)
    XCTAssertEqual(floorEvents, ["up", "up", "down", "down"])
  }

  /// A walked 2 m mezzanine is one level, as `CMPedometer` counts it (`FloorCounter`: a settled
  /// change of at least 1.5 m counts max(1, round(Δh / 3 m))). The dashboard's former rule of its
  /// own counted a floor only at a full 3 m, and gave 0 here.
  func testAWalkedMezzanineIsOneFloor() throws {
    let scenario = Scenario(
      name: "mezzanine",
      segments: [
        .rest(duration: 2), .walk(cadence: 1.8, speed: 1.3, duration: 20), .rest(duration: 12),
      ],
      initialAttitude: .eulerDegrees(roll: 0, pitch: 40, yaw: 0))
    var stream = SimulatedSensorStream(scenario: scenario)
    var adapter = PedometerAdapter()
    var floorEvents: [String] = []
    var nextReading = 0.0
    while let sample = try stream.next() {
      guard let force = sample.accelerometer else { continue }
      let time = sample.timestamp
      _ = adapter.process(time: time, acceleration: -force / 9.80665)
      // 2 m up while walking, from 6 s to 18 s; 10 readings a second.
      guard time >= nextReading else { continue }
      nextReading += 0.1
      let height = 2 * min(max((time - 6) / 12, 0), 1)
      floorEvents +=
        (adapter.process(
          time: time, pressure: StandardAtmosphere.pressure(atAltitude: height)) ?? [])
        .filter { $0.kind == "floor" }.map(\.detail)
    }
    XCTAssertGreaterThan(adapter.snapshot.steps, 25)
    XCTAssertEqual(floorEvents, ["up"])
    XCTAssertEqual(adapter.snapshot.floorsAscended, 1)
    XCTAssertEqual(adapter.snapshot.relativeAltitude ?? 0, 2, accuracy: 0.05)
  }

  /// A refused reading (hPa sent as kPa, a broken sensor) gives no altitude and no plot row.
  func testARefusedReadingIsLeftOut() {
    var adapter = PedometerAdapter()
    XCTAssertNil(adapter.process(time: 0, pressure: 1013.25))
    XCTAssertNil(adapter.snapshot.relativeAltitude)
    XCTAssertEqual(adapter.refusedPressureReadings, 1)
    XCTAssertEqual(adapter.process(time: 1, pressure: 101.325)?.count, 0)
    XCTAssertEqual(adapter.snapshot.relativeAltitude, 0)
  }
}
