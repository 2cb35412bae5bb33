// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import MotionSensors
import XCTest

/// The shipped classifier on the simulator's scenarios, against each scenario's ground truth (its
/// events), with the phone noise preset and the scenario's own seed: what `motionctl demo` shows.
final class ActivitySimulatorTests: XCTestCase {
  /// The classifier may take up to this long to report a change (the issue allows 10 s; the window
  /// is 5 s and two windows confirm a change), so seconds this close after a change are not scored.
  private let settleTime = 10.0
  /// Share of the scored seconds whose reported activity must match the ground truth: the rest
  /// covers the ramps at the ends of a segment (a car slowing to a stop is still a car, but it
  /// vibrates less) and a window or two of hesitation.
  private let minimumAgreement = 0.8

  /// The reported activity once per second of scenario time, from the accelerometer (g).
  private func timeline(
    _ name: String, parameters: ActivityClassifier.Parameters = .default
  ) throws -> (times: [Double], activities: [ActivityEstimate], events: [ScenarioEvent]) {
    var stream = try SimulatedSensorStream(named: name)
    var classifier = ActivityClassifier(parameters: parameters)
    var times: [Double] = []
    var activities: [ActivityEstimate] = []
    var nextMark = 1.0
    while let sample = try stream.next() {
      guard let acceleration = sample.accelerometer else { continue }
      _ = classifier.process(time: sample.timestamp, acceleration: acceleration / 9.80665)
      if sample.timestamp >= nextMark {
        times.append(sample.timestamp)
        activities.append(classifier.current)
        nextMark += 1
      }
    }
    return (times, activities, stream.events)
  }

  /// Share of the seconds in [start + settleTime, end] where `matches` holds.
  private func agreement(
    _ run: (times: [Double], activities: [ActivityEstimate], events: [ScenarioEvent]),
    from start: Double, to end: Double,
    _ matches: (ActivityEstimate) -> Bool
  ) -> (share: Double, count: Int) {
    var scored = 0
    var right = 0
    for (time, activity) in zip(run.times, run.activities)
    where time >= start + settleTime && time <= end {
      scored += 1
      if matches(activity) { right += 1 }
    }
    return (scored > 0 ? Double(right) / Double(scored) : 0, scored)
  }

  private func letters(_ activities: [ActivityEstimate]) -> String {
    String(
      activities.map { a -> Character in
        a.automotive
          ? (a.stationary ? "A" : "a")
          : a.stationary ? "s" : a.walking ? "w" : a.running ? "r" : a.cycling ? "c" : "?"
      })
  }

  /// `commute`: a drive with two stops at red lights is automotive throughout, stops included.
  func testCommuteIsAutomotiveIncludingStops() throws {
    let run = try timeline("commute")
    let drives = run.events.filter { $0.kind == .drive }
    let start = try XCTUnwrap(drives.first?.start)
    let end = try XCTUnwrap(drives.last?.end)
    let result = agreement(run, from: start, to: end) { $0.automotive }
    XCTAssertGreaterThan(result.count, 100)
    XCTAssertGreaterThanOrEqual(
      result.share, minimumAgreement, "commute: \(letters(run.activities))")
  }

  /// `drive`: one drive, automotive.
  func testDriveIsAutomotive() throws {
    let run = try timeline("drive")
    let drive = try XCTUnwrap(run.events.first { $0.kind == .drive })
    let result = agreement(run, from: drive.start, to: drive.end) { $0.automotive }
    XCTAssertGreaterThan(result.count, 40)
    XCTAssertGreaterThanOrEqual(result.share, minimumAgreement, "drive: \(letters(run.activities))")
  }

  /// `cycle`: pedalling with the phone in a trouser pocket is cycling. It read as walking until
  /// the simulator's thigh tilted the right way, and with the pocket's height a quarter of a turn
  /// out of step with the thigh it read as cycling from 10 s into the ride (docs/MotionActivity.md).
  func testPocketPedallingIsCycling() throws {
    let run = try timeline("cycle")
    let ride = try XCTUnwrap(run.events.first { $0.kind == .cycle })
    let result = agreement(run, from: ride.start, to: ride.end) { $0.cycling }
    XCTAssertGreaterThan(result.count, 40)
    XCTAssertGreaterThanOrEqual(result.share, minimumAgreement, "cycle: \(letters(run.activities))")
  }

  /// `carPark`: a drive with the phone in a trouser pocket is automotive, and the walk out of
  /// the car (up a flight of stairs, then on the level) is reported as walking, and no longer
  /// automotive, within 10 s of its start (the bound for a real change), and stays so.
  func testCarParkIsAutomotiveThenWalkingWithinTenSeconds() throws {
    let run = try timeline("carPark")
    let drive = try XCTUnwrap(run.events.first { $0.kind == .drive })
    let driving = agreement(run, from: drive.start, to: drive.end) { $0.automotive }
    XCTAssertGreaterThan(driving.count, 60)
    XCTAssertGreaterThanOrEqual(
      driving.share, minimumAgreement, "carPark: \(letters(run.activities))")
    let climb = try XCTUnwrap(run.events.first { $0.kind == .stairs })
    let walk = try XCTUnwrap(run.events.last { $0.kind == .walk })
    let firstWalking = try XCTUnwrap(
      zip(run.times, run.activities).first {
        $0.0 >= climb.start && $0.1.walking && !$0.1.automotive
      }?.0,
      "carPark: \(letters(run.activities))")
    XCTAssertLessThanOrEqual(
      firstWalking - climb.start, settleTime, "carPark: \(letters(run.activities))")
    let walking = agreement(run, from: climb.start, to: walk.end) { $0.walking && !$0.automotive }
    XCTAssertGreaterThan(walking.count, 10)
    XCTAssertGreaterThanOrEqual(
      walking.share, minimumAgreement, "carPark: \(letters(run.activities))")
  }

  /// `escalator`: standing on the moving steps is stationary (the step chain's rumble is small).
  func testEscalatorRideIsStationary() throws {
    let run = try timeline("escalator")
    let ride = try XCTUnwrap(run.events.first { $0.kind == .escalator })
    let result = agreement(run, from: ride.start, to: ride.end) { $0.stationary && !$0.automotive }
    XCTAssertGreaterThan(result.count, 5)
    XCTAssertGreaterThanOrEqual(
      result.share, minimumAgreement, "escalator: \(letters(run.activities))")
  }

  /// `desk`: ten minutes on a desk are stationary.
  func testDeskIsStationary() throws {
    let run = try timeline("desk")
    let result = agreement(run, from: 0, to: .infinity) { $0.stationary && !$0.automotive }
    XCTAssertGreaterThanOrEqual(result.share, 0.99, "desk: \(letters(run.activities).prefix(120))")
  }

  /// The walking and running scenarios: their bouts are walking or running.
  func testGaitScenariosMatchTheirBouts() throws {
    for (name, kind) in [
      ("walkPocket", ScenarioEvent.Kind.walk), ("walkBackPocket", .walk), ("walkBag", .walk),
      ("walk", .walk),
      ("run", .run),
    ] {
      let run = try timeline(name)
      let bout = try XCTUnwrap(run.events.first { $0.kind == kind }, name)
      let result = agreement(run, from: bout.start, to: bout.end) {
        kind == .run ? $0.running : $0.walking
      }
      XCTAssertGreaterThan(result.count, 5, name)
      XCTAssertGreaterThanOrEqual(
        result.share, minimumAgreement, "\(name): \(letters(run.activities))")
    }
  }

  /// `lift`: standing in a lift that speeds up, travels and slows down is not a vehicle. The
  /// vertical-ride rule is what makes it so: without it the same ride reads as a car pulling away,
  /// waiting and pulling away again.
  func testLiftRideIsNotAVehicle() throws {
    let run = try timeline("lift")
    let ride = try XCTUnwrap(run.events.first { $0.kind == .lift })
    // Until 5 s after the ride, when the window has left it.
    let notVehicle = agreement(run, from: ride.start - settleTime, to: ride.end + 5) {
      !$0.automotive
    }
    XCTAssertGreaterThan(notVehicle.count, 15)
    XCTAssertEqual(notVehicle.share, 1, "lift: \(letters(run.activities))")
    let atRest = agreement(run, from: ride.start, to: ride.end) { $0.stationary }
    XCTAssertGreaterThanOrEqual(atRest.share, minimumAgreement, "lift: \(letters(run.activities))")

    var withoutRule = ActivityClassifier.Parameters()
    withoutRule.vehicleNeutralVerticalRatio = 0
    let ruleOff = try timeline("lift", parameters: withoutRule)
    let vehicle = agreement(ruleOff, from: ride.start - settleTime, to: ride.end + 5) {
      $0.automotive
    }
    XCTAssertGreaterThan(vehicle.share, 0.5, "lift, rule off: \(letters(ruleOff.activities))")
  }

  /// `tour`: a phone picked up and turned through every orientation at a desk, then shaken, is a
  /// person at rest throughout, never a vehicle and never walking. The orientation-change rule
  /// keeps the turns from reading as a vehicle, the slow-power rule keeps the shake from reading
  /// as walking: without either, the tour reads as that.
  func testPhoneTurnedAndShakenAtADeskIsAtRest() throws {
    let scenario = try Scenario.named("tour")
    let shakeIndex = try XCTUnwrap(
      scenario.segments.firstIndex {
        if case .shake = $0 { return true } else { return false }
      })
    let shakeStart = scenario.segments[..<shakeIndex].reduce(0) { $0 + $1.duration }
    let run = try timeline("tour")
    let atRest = agreement(run, from: 0, to: .infinity) { $0.stationary && !$0.automotive }
    XCTAssertGreaterThan(atRest.count, 35)
    XCTAssertEqual(atRest.share, 1, "tour: \(letters(run.activities))")

    var withoutGaitRule = ActivityClassifier.Parameters()
    withoutGaitRule.largestSlowPowerShareOfAGait = 1
    let gaitRuleOff = try timeline("tour", parameters: withoutGaitRule)
    let afterShake = zip(gaitRuleOff.times, gaitRuleOff.activities).filter { $0.0 >= shakeStart }
    XCTAssertTrue(
      afterShake.contains { $0.1.walking }, "tour, rule off: \(letters(gaitRuleOff.activities))")

    var withoutRule = ActivityClassifier.Parameters()
    withoutRule.vehicleNeutralOrientationChange = 0
    let ruleOff = try timeline("tour", parameters: withoutRule)
    let vehicle = agreement(ruleOff, from: 0, to: shakeStart) { $0.automotive }
    XCTAssertGreaterThan(vehicle.share, 0.5, "tour, rule off: \(letters(ruleOff.activities))")
  }
}
