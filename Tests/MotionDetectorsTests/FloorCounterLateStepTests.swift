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
  /// `counted` hears each change the counter returns, with the time of the reading it came
  /// from.
  private func count(
    steps: [Double], notedLateBy delay: Double, until end: Double,
    parameters: FloorCounter.Parameters = .default, missing: Range<Double> = 0..<0,
    counted: (FloorCounter.Change, _ readingTime: Double) -> Void = { _, _ in },
    height: (Double) -> Double
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
      if missing.contains(time) { continue }  // the barometer dropped out
      let pressure = FloorCounterRobustnessTests.pressure(atHeight: height(Swift.min(time, end)))
      if let change = counter.process(time: time, pressure: pressure) { counted(change, time) }
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

  /// Floors that late steps show to be walked are dated where the same steps noted in time
  /// count them (the reading at which the change settles), however late they are counted.
  func testLateFloorsAreDatedWhereStepsInTimeCountThem() {
    let steps = walking(from: 15, to: 35)
    for sign in [1.0, -1.0] {
      var inTime: [(change: FloorCounter.Change, readingTime: Double)] = []
      _ = count(
        steps: steps, notedLateBy: 0, until: 120, counted: { inTime.append(($0, $1)) },
        height: oneFloor(sign))
      XCTAssertEqual(inTime.count, 1, "sign \(sign)")
      guard let expected = inTime.first else { continue }
      XCTAssertEqual(expected.change.time, expected.readingTime, "sign \(sign), in time")
      for delay in [2.5, 9.0, 17.0, 40.0, 65.0] {
        var late: [(change: FloorCounter.Change, readingTime: Double)] = []
        _ = count(
          steps: steps, notedLateBy: delay, until: 120, counted: { late.append(($0, $1)) },
          height: oneFloor(sign))
        XCTAssertEqual(late.count, 1, "sign \(sign), steps \(delay) s late")
        guard let counted = late.first else { continue }
        XCTAssertEqual(counted.change.ascended, expected.change.ascended, "steps \(delay) s late")
        XCTAssertEqual(counted.change.descended, expected.change.descended, "steps \(delay) s late")
        XCTAssertEqual(
          counted.change.time, expected.change.time, accuracy: 1e-9,
          "sign \(sign), steps \(delay) s late: dated where steps in time count it")
        // Counted only once the steps that walked it are noted (the last one, 34.5 s, needed
        // to reach half of the change is noted `delay` s after it happened).
        XCTAssertGreaterThanOrEqual(counted.readingTime, counted.change.time)
        if delay >= 17 {
          XCTAssertGreaterThan(
            counted.readingTime, counted.change.time + 1, "steps \(delay) s late")
        }
      }
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

  /// A step time repeated again and again, or far in the future, during a lift ride cannot add
  /// up to the ride walked: no stretch of time is credited twice. (A review found that 40
  /// repeats of the walk-in's last steps counted the 9 m ride as 3 floors.)
  func testRepeatedOrBogusStepTimesDoNotWalkALiftRide() {
    func lift(_ time: Double) -> Double { 9 * Swift.min(1, Swift.max(0, (time - 30) / 16)) }
    for bogus in [false, true] {
      var counter = FloorCounter()
      let walkIn = walking(from: 10, to: 30)
      var nextStep = 0
      for index in 0..<1200 {
        let time = Double(index) / 10
        while nextStep < walkIn.count, walkIn[nextStep] <= time {
          counter.noteStep(time: walkIn[nextStep])
          nextStep += 1
        }
        if time >= 31, time < 60, index % 10 == 0 {
          for _ in 0..<40 {
            if bogus { counter.noteStep(time: 1e9) }
            counter.noteStep(time: 25)
            counter.noteStep(time: 29.5)
          }
        }
        _ = counter.process(
          time: time, pressure: FloorCounterRobustnessTests.pressure(atHeight: lift(time)))
      }
      XCTAssertEqual(
        counter.floorsAscended + counter.floorsDescended, 0, bogus ? "with 1e9 s" : "repeats")
    }
  }

  /// A floor walked while the steps are held, then a barometer dropout (6 s, no step noted
  /// during it, since the walk is still held): the floor counts when the steps arrive.
  func testAGapInTheReadingsKeepsAFloorWaitingForLateSteps() {
    let steps = walking(from: 15, to: 35)
    for delay in [0.0, 40.0, 65.0] {
      let counter = count(
        steps: steps, notedLateBy: delay, until: 150, missing: 40..<46, height: oneFloor(1))
      XCTAssertEqual(counter.floorsAscended, 1, "steps \(delay) s late")
    }
  }

  /// Six flights of one floor each (4 s, 12 s apart, steps only on the stairs), all noted a
  /// minute late: they count what the same steps count in time (5 floors in this layout). With
  /// four slots for waiting changes, a review counted 3.
  func testSixShortFlightsNotedAMinuteLateAllCount() {
    let starts = (0..<6).map { 20 + 12 * Double($0) }
    let steps = starts.flatMap { walking(from: $0 - 0.5, to: $0 + 4.5) }
    func height(_ time: Double) -> Double {
      starts.reduce(0) { $0 + 3 * Swift.min(1, Swift.max(0, (time - $1) / 4)) }
    }
    var inTimeChanges: [(change: FloorCounter.Change, readingTime: Double)] = []
    let inTime = count(
      steps: steps, notedLateBy: 0, until: 200, counted: { inTimeChanges.append(($0, $1)) },
      height: height)
    var lateChanges: [(change: FloorCounter.Change, readingTime: Double)] = []
    let late = count(
      steps: steps, notedLateBy: 60, until: 200, counted: { lateChanges.append(($0, $1)) },
      height: height)
    XCTAssertEqual(late.floorsAscended, inTime.floorsAscended)
    XCTAssertGreaterThanOrEqual(late.floorsAscended, 5)
    // Each counted once the steps of its flight were noted (from a minute after it began),
    // dated where it was counted in time.
    XCTAssertEqual(lateChanges.count, inTimeChanges.count)
    for (index, (late, inTime)) in zip(lateChanges, inTimeChanges).enumerated() {
      XCTAssertEqual(late.change, inTime.change)
      XCTAssertGreaterThanOrEqual(late.readingTime, starts[index] + 60)
      XCTAssertGreaterThan(late.readingTime, inTime.readingTime + 40)
    }

    // All the steps noted at once after the last flight (a hold given back in one go): the
    // waiting changes are counted over the next bins, one per bin, each with its own date.
    var counter = FloorCounter()
    var batched: [FloorCounter.Change] = []
    for index in 0..<2000 {
      let time = Double(index) / 10
      if index == 950 { for step in steps { counter.noteStep(time: step) } }
      let pressure = FloorCounterRobustnessTests.pressure(atHeight: height(time))
      if let change = counter.process(time: time, pressure: pressure) { batched.append(change) }
    }
    XCTAssertEqual(batched, inTimeChanges.map(\.change))
  }

  /// Eight flights 20 s apart whose steps are all held, then a lift ridden standing; the steps
  /// come back at once, at any time before the lift settles (a longer allowance keeps all eight
  /// flights waiting). Every flight counts, dated as in time: the lift settling in the bin where
  /// the first walked flight is counted used to push that flight, already walked, out of the
  /// full ring (a review found it).
  func testAWalkedWaitingFlightIsNotPushedOutByALiftSettling() {
    var parameters = FloorCounter.Parameters()
    parameters.lateStepAllowance = 600
    let starts = (0..<8).map { 20 + 20 * Double($0) }
    let steps = starts.flatMap { walking(from: $0 - 3, to: $0 + 9) }
    func height(_ time: Double) -> Double {
      (starts + [190]).reduce(0) { $0 + 3 * Swift.min(1, Swift.max(0, (time - $1) / 4)) }
    }
    func run(notingAllAt noteIndex: Int?) -> [FloorCounter.Change] {
      var counter = FloorCounter(parameters: parameters)
      var nextStep = 0
      var changes: [FloorCounter.Change] = []
      for index in 0..<3000 {
        let time = Double(index) / 10
        if let noteIndex {
          if index == noteIndex { steps.forEach { counter.noteStep(time: $0) } }
        } else {
          while nextStep < steps.count, steps[nextStep] <= time {
            counter.noteStep(time: steps[nextStep])
            nextStep += 1
          }
        }
        let pressure = FloorCounterRobustnessTests.pressure(atHeight: height(time))
        if let change = counter.process(time: time, pressure: pressure) { changes.append(change) }
      }
      return changes
    }
    let inTime = run(notingAllAt: nil)
    XCTAssertEqual(inTime.reduce(0) { $0 + $1.ascended }, 8)
    // The lift settles in the bin of 203 s: steps noted up to the reading before it.
    for noteIndex in [1_800, 1_900, 2_000, 2_019, 2_020, 2_021, 2_025, 2_029, 2_030] {
      let late = run(notingAllAt: noteIndex)
      XCTAssertEqual(late, inTime, "steps noted at \(Double(noteIndex) / 10) s")
    }
  }

  /// A floor whose steps are noted just before a two-hour gap in the readings is counted once
  /// the level track is rebuilt after it, still dated where it settled, before the gap.
  func testAFloorCountedAfterAGapKeepsItsDate() {
    var counter = FloorCounter()
    var changes: [(change: FloorCounter.Change, readingTime: Double)] = []
    for index in 0..<1400 {
      // 0–80 s, then 7200–7260 s.
      let time = index < 800 ? Double(index) / 10 : 7200 + Double(index - 800) / 10
      if index == 800 { walking(from: 15, to: 35).forEach { counter.noteStep(time: $0) } }
      let pressure = FloorCounterRobustnessTests.pressure(atHeight: oneFloor(1)(time))
      if let change = counter.process(time: time, pressure: pressure) {
        changes.append((change, time))
      }
    }
    let inTime = count(
      steps: walking(from: 15, to: 35), notedLateBy: 0, until: 80, height: oneFloor(1))
    XCTAssertEqual(inTime.floorsAscended, 1)
    XCTAssertEqual(changes.count, 1)
    XCTAssertEqual(changes.first?.change.ascended, 1)
    XCTAssertGreaterThan(changes.first?.readingTime ?? 0, 7200)
    XCTAssertLessThan(changes.first?.change.time ?? .infinity, 80)
  }

  /// The barometer's clock restarting lower forgets the changes waiting for late steps (their
  /// times are on the old clock); nothing traps, and the new timeline counts its own floors.
  func testANewTimelineForgetsTheWaitingChanges() {
    var counter = FloorCounter()
    // A floor climbed at 20–28 s with no step noted yet.
    for index in 0..<600 {
      let time = Double(index) / 10
      _ = counter.process(
        time: time, pressure: FloorCounterRobustnessTests.pressure(atHeight: oneFloor(1)(time)))
    }
    // The clock restarts at 0 (at the same height); the old walk's steps arrive, stamped on the
    // old clock: they cannot reach the forgotten change.
    for index in 0..<300 {
      let time = Double(index) / 10
      if index == 100 { for step in walking(from: 15, to: 35) { counter.noteStep(time: step) } }
      _ = counter.process(time: time, pressure: FloorCounterRobustnessTests.pressure(atHeight: 3))
    }
    XCTAssertEqual(counter.floorsAscended, 0)
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
        let (counter, stepsNotNoted) = try FloorCounterTests.countFloors(
          scenario, seed: 3, stepsNotedLateBy: delay)
        XCTAssertEqual(stepsNotNoted, 0, "\(name): every step noted")
        XCTAssertEqual(counter.floorsAscended, truth.ascended, "\(name), \(delay) s late")
        XCTAssertEqual(counter.floorsDescended, truth.descended, "\(name), \(delay) s late")
      }
    }
  }
}
