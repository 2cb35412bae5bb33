// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import MotionSensors
import XCTest

/// A floor walked right after a drive (out of the car park by the stairs) counts. The riding
/// gate holds a walk's first steps after a ride until the walk is confirmed, 8–9 s here, and
/// the barometer's floor counter heard them only then: before it took late steps into account,
/// a floor walked in 7 s after a drive was lost in 11 of these 12 runs (3 seeds, 2 rests, up
/// and down), while with the gate left out every ascent of the same runs counted. The
/// simulator's scenarios, through the same parts as `CMPedometer` (``PedometerTracker``,
/// ``BarometerTracker``).
final class WalkedFloorsAfterADriveTests: XCTestCase {
  /// A 90 s town drive with the phone in a trouser pocket, `rest` s standing, then `last`
  /// (a staircase or a lift ride) and a short walk.
  private func scenario(rest: Double, then last: ScenarioSegment) -> Scenario {
    Scenario(
      name: "driveThenClimb",
      segments: [
        .rest(duration: 3),
        .drive(speed: 13, duration: 90, vibration: 0.8, ramp: 6, turns: []),
        .rest(duration: rest), last, .gait(Gait(placement: .frontPocket), duration: 10),
        .rest(duration: 5),
      ],
      initialAttitude: DeviceAttitude.orientation(.portrait), altitude: 200)
  }

  /// Runs `scenario` through the pedometer's tracker (steps in the gate's order and times) and
  /// a barometer tracker told of each counted step; returns the floors and the latest a step
  /// was counted after it happened, s.
  private func run(
    _ scenario: Scenario, seed: UInt64
  ) throws -> (
    ascended: Int, descended: Int, latestCount: Double
  ) {
    var stream = SimulatedSensorStream(scenario: scenario, seed: seed)
    var pedometer = PedometerTracker()
    var barometer = BarometerTracker()
    var latestCount = 0.0
    while let sample = try stream.next() {
      if let specificForce = sample.accelerometer {
        // Core Motion's acceleration: g with Apple's sign.
        pedometer.process(time: sample.timestamp, acceleration: -specificForce / 9.80665)
        while let step = pedometer.nextStep() {
          latestCount = Swift.max(latestCount, sample.timestamp - step)
          barometer.noteStep(time: step)
        }
      }
      if let pressure = sample.pressure {
        _ = barometer.process(time: sample.timestamp, pressure: pressure)
      }
    }
    return (barometer.floorsAscended, barometer.floorsDescended, latestCount)
  }

  func testAFloorWalkedRightAfterADriveCounts() throws {
    for climb in [3.0, -3.0] {
      let stairs = Gait(
        style: .walk, placement: .frontPocket, cadence: 1.8, speed: 0.5, climb: climb)
      for rest in [2.0, 10.0] {
        let scenario = scenario(rest: rest, then: .gait(stairs, duration: 7))
        let truth = scenario.groundTruthFloors()
        for seed: UInt64 in [1, 2, 3] {
          let result = try run(scenario, seed: seed)
          let label = "climb \(climb) m after \(rest) s, seed \(seed)"
          // The gate did hold the walk's first steps (what this test is about).
          XCTAssertGreaterThan(result.latestCount, 5, label)
          XCTAssertEqual(result.ascended, truth.ascended, label)
          XCTAssertEqual(result.descended, truth.descended, label)
        }
      }
    }
  }

  /// Walking into a lift after a drive and riding three floors standing counts none.
  func testALiftRideAfterADriveCountsNoFloor() throws {
    let walkIn = ScenarioSegment.gait(Gait(placement: .frontPocket), duration: 8)
    var ride = scenario(rest: 2, then: walkIn)
    ride.segments.insert(.rest(duration: 3), at: 4)
    ride.segments.insert(.ride(.lift, climb: 9, duration: 16), at: 5)
    ride.segments.insert(.rest(duration: 3), at: 6)
    XCTAssertEqual(ride.groundTruthFloors().ascended, 0)
    for seed: UInt64 in [1, 2] {
      let result = try run(ride, seed: seed)
      XCTAssertEqual(result.ascended + result.descended, 0, "seed \(seed)")
    }
  }
}
