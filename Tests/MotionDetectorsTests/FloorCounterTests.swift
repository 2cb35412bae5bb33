// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import MotionSensors
import XCTest

/// Floors and relative altitude on the simulator's scenarios, whose ground truth is in their
/// segments (the climb of each walked segment) and events (the steps).
final class FloorCounterTests: XCTestCase {
  /// Runs `scenario` through a floor counter fed with the scenario's true step times (so that
  /// this test checks the floor logic alone, not the step detector), each noted `delay` s after
  /// it happened: before the first sample at or after that time. Returns the counter and the
  /// steps still waiting to be noted when the scenario ended.
  static func countFloors(
    _ scenario: Scenario, seed: UInt64 = 1, stepsNotedLateBy delay: Double = 0
  ) throws -> (counter: FloorCounter, stepsNotNoted: Int) {
    var stream = SimulatedSensorStream(scenario: scenario, seed: seed)
    let steps = stream.events.filter { $0.kind == .step }.map { ($0.start + $0.end) / 2 }
    var nextStep = 0
    var counter = FloorCounter()
    while let sample = try stream.next() {
      while nextStep < steps.count, steps[nextStep] + delay <= sample.timestamp {
        counter.noteStep(time: steps[nextStep])
        nextStep += 1
      }
      if let pressure = sample.pressure {
        _ = counter.process(time: sample.timestamp, pressure: pressure)
      }
    }
    return (counter, steps.count - nextStep)
  }

  func testEveryActivityScenarioCountsItsWalkedFloorsExactly() throws {
    for name in Scenario.activityNames {
      let scenario = try Scenario.named(name)
      let truth = scenario.groundTruthFloors()
      for seed: UInt64 in [1, 2] {
        let counter = try Self.countFloors(scenario, seed: seed).counter
        XCTAssertEqual(
          counter.floorsAscended, truth.ascended, "\(name) seed \(seed): floors ascended")
        XCTAssertEqual(
          counter.floorsDescended, truth.descended, "\(name) seed \(seed): floors descended")
      }
    }
  }

  func testStairsScenarioHasTwoFloorsEachWay() throws {
    let truth = try Scenario.named("stairs").groundTruthFloors()
    XCTAssertEqual(truth.ascended, 2)
    XCTAssertEqual(truth.descended, 2)
  }

  func testLiftAndStandingEscalatorCountNoFloor() throws {
    for name in ["lift", "escalator"] {
      let counter = try Self.countFloors(try Scenario.named(name)).counter
      XCTAssertEqual(counter.floorsAscended + counter.floorsDescended, 0, name)
    }
  }

  /// An hour on a desk under a falling barometer (−0.15 kPa/h: 12 m of apparent height) with door
  /// slams, and the person walking around the office now and then: no floor.
  func testAnHourOfWeatherDriftAndDoorSlamsCountsNoFloor() throws {
    var scenario = try Scenario.named("desk")
    scenario.duration = 3600
    scenario.sampleRate = 10  // A phone barometer's rate; keeps the hour quick.
    var stream = SimulatedSensorStream(scenario: scenario)
    var counter = FloorCounter()
    while let sample = try stream.next() {
      // Walking for a minute every ten minutes: the drift during a walk must not count either.
      if sample.timestamp.truncatingRemainder(dividingBy: 600) < 60 {
        counter.noteStep(time: sample.timestamp)
      }
      if let pressure = sample.pressure {
        _ = counter.process(time: sample.timestamp, pressure: pressure)
      }
    }
    XCTAssertEqual(counter.floorsAscended, 0)
    XCTAssertEqual(counter.floorsDescended, 0)
  }

  /// A walked mezzanine (2 m, less than a floor height) is one level, as in the IPIN ground truth;
  /// a long staircase counts as it is climbed.
  func testMezzanineAndTallStaircase() throws {
    let mezzanine = Scenario(
      name: "mezzanine",
      segments: [
        .rest(duration: 3), .gait(Gait(speed: 0.5, climb: 2), duration: 10),
        .gait(Gait(), duration: 10),
        .rest(duration: 6),
      ])
    XCTAssertEqual(try Self.countFloors(mezzanine).counter.floorsAscended, 1)

    let tower = Scenario(
      name: "tower",
      segments: [
        .rest(duration: 3), .gait(Gait(speed: 0.5, climb: -15), duration: 60), .rest(duration: 8),
      ])
    let counter = try Self.countFloors(tower).counter
    XCTAssertEqual(counter.floorsDescended, 5)
    XCTAssertEqual(counter.floorsAscended, 0)
  }

  func testInvalidReadingsAreSkipped() {
    var counter = FloorCounter()
    // Outside 1–200 kPa: broken, or in the wrong unit (Pa read as kPa).
    for value in [Double.nan, .infinity, -1, 0, 0.5, 250, 101_325, 1e306] {
      XCTAssertNil(counter.process(time: 0, pressure: value))
    }
    XCTAssertNil(counter.process(time: .nan, pressure: 100))
  }
}
