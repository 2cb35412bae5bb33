// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import MotionSensors
import XCTest

/// Steps noted after the barometer has passed their time still count for the floors they
/// climbed: the pedometer's riding gate gives a walk's steps back only once the walk is
/// confirmed (up to about a minute late), and a floor climbed meanwhile used to be taken for a
/// lift. Exact streams as in ``FloorCounterRobustnessTests``: 10 Hz readings of a height profile
/// and a step every 0.5 s while walking.
final class FloorCounterLateStepTests: XCTestCase {
  /// Feeds 10 Hz readings of `height(t)` m from 0 to `end` s, and each of `steps` (s, in order)
  /// `delay` s after it happened: before the first reading at or after that time, as a
  /// pedometer that held it would. Steps still waiting at the end are noted then, followed by
  /// a minute of readings at the final height (so that a change noted late can settle).
  private func count(
    steps: [Double], notedLateBy delay: Double, until end: Double,
    parameters: FloorCounter.Parameters = .default, height: (Double) -> Double
  ) -> FloorCounter {
    var counter = FloorCounter(parameters: parameters)
    var nextStep = 0
    let readings = Int((end * 10).rounded()) + 600
    for index in 0..<readings {
      let time = Double(index) / 10
      while nextStep < steps.count, steps[nextStep] + delay <= time {
        counter.noteStep(time: steps[nextStep])
        nextStep += 1
      }
      let pressure = FloorCounterRobustnessTests.pressure(atHeight: height(Swift.min(time, end)))
      _ = counter.process(time: time, pressure: pressure)
    }
    return counter
  }

  /// A step every 0.5 s from `start` to `end` s.
  private func walking(from start: Double, to end: Double) -> [Double] {
    Array(stride(from: start, to: end, by: 0.5))
  }

  /// Height of one floor climbed (`sign` +1) or descended (−1) in 8 s from 20 s on, m.
  private func oneFloor(_ sign: Double) -> (Double) -> Double {
    { time in sign * 3 * Swift.min(1, Swift.max(0, (time - 20) / 8)) }
  }

  /// Whatever the delay within the allowance, the walked floor counts once, up and down; the
  /// walk starts 5 s before the stairs and ends 7 s after them.
  func testAFloorWhoseStepsAreNotedLateStillCounts() {
    let steps = walking(from: 15, to: 35)
    for delay in [0.0, 1.0, 2.5, 9.0, 17.0, 40.0, 65.0] {
      let up = count(steps: steps, notedLateBy: delay, until: 120, height: oneFloor(1))
      XCTAssertEqual(up.floorsAscended, 1, "up, steps \(delay) s late")
      XCTAssertEqual(up.floorsDescended, 0, "up, steps \(delay) s late")
      let down = count(steps: steps, notedLateBy: delay, until: 120, height: oneFloor(-1))
      XCTAssertEqual(down.floorsAscended, 0, "down, steps \(delay) s late")
      XCTAssertEqual(down.floorsDescended, 1, "down, steps \(delay) s late")
    }
  }

  /// A long staircase (4 floors at 0.25 m/s) counts as it is climbed once the late steps
  /// arrive, and ends with every floor.
  func testALongStaircaseNotedLateCountsEveryFloor() {
    let steps = walking(from: 15, to: 75)
    for delay in [0.0, 9.0, 17.0] {
      let counter = count(steps: steps, notedLateBy: delay, until: 150) { time in
        Swift.min(12, Swift.max(0, 0.25 * (time - 20)))
      }
      XCTAssertEqual(counter.floorsAscended, 4, "steps \(delay) s late")
      XCTAssertEqual(counter.floorsDescended, 0, "steps \(delay) s late")
    }
  }

  /// Steps that arrive after the allowance do not count the floor; a longer allowance does.
  func testStepsLaterThanTheAllowanceDoNotCount() {
    let steps = walking(from: 15, to: 35)
    let late = count(steps: steps, notedLateBy: 90, until: 200, height: oneFloor(1))
    XCTAssertEqual(late.floorsAscended, 0)
    var parameters = FloorCounter.Parameters()
    parameters.lateStepAllowance = 120
    let allowed = count(
      steps: steps, notedLateBy: 90, until: 200, parameters: parameters, height: oneFloor(1))
    XCTAssertEqual(allowed.floorsAscended, 1)
    parameters.lateStepAllowance = 0
    let none = count(
      steps: steps, notedLateBy: 17, until: 200, parameters: parameters, height: oneFloor(1))
    XCTAssertEqual(none.floorsAscended, 0, "no allowance: a late walk is not credited")
  }

  /// Walking to a lift, riding three floors standing (16 s) and walking out: the steps noted
  /// late, before and after the ride, do not make the ride walked.
  func testLateStepsAroundALiftRideDoNotCountIt() {
    let steps = walking(from: 10, to: 26) + walking(from: 50, to: 62)
    for delay in [0.0, 2.5, 17.0, 65.0] {
      let counter = count(steps: steps, notedLateBy: delay, until: 150) { time in
        9 * Swift.min(1, Swift.max(0, (time - 30) / 16))
      }
      XCTAssertEqual(counter.floorsAscended + counter.floorsDescended, 0, "\(delay) s late")
    }
  }

  /// Five lift rides of a floor each in quick succession, then the walk of a sixth floor noted
  /// late: the ring of kept changes forgets the oldest rides, never counts one, and still
  /// counts the walked floor.
  func testManyUnwalkedChangesThenALateWalk() {
    // Rides at 20, 40, 60, 80 and 100 s (8 s each), stairs at 120 s, steps 115–135 s.
    func height(_ time: Double) -> Double {
      var total = 0.0
      for start in stride(from: 20.0, through: 120, by: 20) {
        total += 3 * Swift.min(1, Swift.max(0, (time - start) / 8))
      }
      return total
    }
    let counter = count(
      steps: walking(from: 115, to: 135), notedLateBy: 17, until: 220, height: height)
    XCTAssertEqual(counter.floorsAscended, 1)
    XCTAssertEqual(counter.floorsDescended, 0)
  }

  /// On every simulated activity scenario, steps noted 0–40 s late count exactly the floors
  /// walked (the scenarios' ground truth): lifts and escalators ridden standing 0. A minute of
  /// rest after each lets the last late steps arrive.
  func testSimulatorScenariosCountTheSameFloorsWithLateSteps() throws {
    for name in Scenario.activityNames {
      var scenario = try Scenario.named(name)
      scenario.segments.append(.rest(duration: 60))
      let truth = scenario.groundTruthFloors()
      for delay in [0.0, 3.0, 17.0, 40.0] {
        var stream = SimulatedSensorStream(scenario: scenario, seed: 3)
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
        XCTAssertEqual(nextStep, steps.count, "\(name): every step noted")
        XCTAssertEqual(counter.floorsAscended, truth.ascended, "\(name), \(delay) s late")
        XCTAssertEqual(counter.floorsDescended, truth.descended, "\(name), \(delay) s late")
      }
    }
  }
}
