// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import XCTest

/// The pedometer's gate between the step detector and the step count: a ride's steps are held
/// back, a walk's are counted, and the first steps of a walk that the classifier still took for
/// the ride are given back when it reports walking.
final class RidingStepGateTests: XCTestCase {
  private static func cycling(
    _ confidence: ActivityEstimate.Confidence, at time: Double
  )
    -> ActivityEstimate
  {
    ActivityEstimate(cycling: true, confidence: confidence, startTime: time)
  }

  private static func walking(at time: Double) -> ActivityEstimate {
    ActivityEstimate(walking: true, confidence: .medium, startTime: time)
  }

  /// Offers `times` and returns what the gate lets through now.
  private static func offer(_ times: [Double], to gate: inout RidingStepGate) -> [Double] {
    for time in times { gate.offer(stepTime: time) }
    return drain(&gate)
  }

  /// A gate whose holds all count as rides, however short (``RidingStepGate/Parameters/shortestRide``
  /// 0): for the rules that are not about short holds.
  private static func gateTreatingEveryHoldAsARide() -> RidingStepGate {
    var parameters = RidingStepGate.Parameters()
    parameters.shortestRide = 0
    return RidingStepGate(parameters: parameters)
  }

  /// Reports walking at `time` and lets it last the gate's confirmation (5 s by default).
  private static func confirmWalking(at time: Double, in gate: inout RidingStepGate) {
    gate.noteActivity(walking(at: time))
    gate.advance(to: time + gate.parameters.releaseConfirmation)
  }

  private static func drain(_ gate: inout RidingStepGate) -> [Double] {
    var passed: [Double] = []
    while let step = gate.nextStep() { passed.append(step) }
    return passed
  }

  /// Steps every 0.5 s from `start` to before `end`.
  private static func steps(from start: Double, to end: Double) -> [Double] {
    Array(stride(from: start, to: end, by: 0.5))
  }

  func testStepsPassUntilARideIsReportedWithHighConfidence() {
    var gate = RidingStepGate()
    XCTAssertEqual(Self.offer([1, 1.5], to: &gate), [1, 1.5], "no report yet: every step counts")
    gate.noteActivity(ActivityEstimate(unknown: true, startTime: 5))
    gate.noteActivity(Self.cycling(.medium, at: 6))
    XCTAssertEqual(
      Self.offer([6.5, 7], to: &gate), [6.5, 7],
      "a ride reported with medium confidence (a start-up guess) holds nothing")
    gate.noteActivity(Self.cycling(.high, at: 8))
    XCTAssertTrue(gate.isHolding)
    XCTAssertEqual(Self.offer(Self.steps(from: 8.5, to: 20), to: &gate), [])
    XCTAssertEqual(gate.heldStepCount, 23)
    XCTAssertEqual(gate.withheldSteps, 0, "held, not yet withheld: walking may still follow")
  }

  func testTheHoldLastsThroughLowConfidenceAStandstillAndUnknown() {
    var gate = RidingStepGate()
    gate.noteActivity(ActivityEstimate(automotive: true, confidence: .high, startTime: 10))
    let estimates = [
      ActivityEstimate(automotive: true, confidence: .low, startTime: 20),
      ActivityEstimate(stationary: true, automotive: true, confidence: .high, startTime: 30),
      ActivityEstimate(unknown: true, confidence: .low, startTime: 40),
      Self.cycling(.low, at: 50),
    ]
    for estimate in estimates {
      gate.noteActivity(estimate)
      XCTAssertTrue(gate.isHolding, "\(estimate)")
      XCTAssertEqual(
        Self.offer([estimate.startTime + 1], to: &gate), [], "a step during \(estimate)")
    }
  }

  /// A walk after a ride: the classifier reports walking some seconds after the walk began, and
  /// once the report has lasted 5 s the steps since 12 s before it are counted, in order; the
  /// ride's older steps are not.
  func testWalkingGivesBackTheStepsOfTheReleaseWindowOnly() {
    var gate = RidingStepGate()
    gate.noteActivity(Self.cycling(.high, at: 0))
    // Pedalling from 0 to 60 s, walking from 60 s, walking reported at 66 s.
    XCTAssertEqual(Self.offer(Self.steps(from: 0.5, to: 66), to: &gate), [])
    gate.noteActivity(Self.walking(at: 66))
    gate.advance(to: 66)
    XCTAssertEqual(Self.offer(Self.steps(from: 66, to: 71), to: &gate), [], "not confirmed yet")
    gate.advance(to: 70.99)
    XCTAssertEqual(Self.drain(&gate), [])
    XCTAssertTrue(gate.isHolding)
    gate.advance(to: 71)
    let givenBack = Self.drain(&gate)
    XCTAssertEqual(
      givenBack, Self.steps(from: 54, to: 71), "the 12 s before the report and the 5 s after")
    XCTAssertEqual(gate.releasedSteps, 34)
    XCTAssertEqual(gate.withheldSteps, 141 - 34)
    XCTAssertFalse(gate.isHolding)
    XCTAssertEqual(Self.offer([71.5], to: &gate), [71.5])
  }

  /// Mid-ride the classifier reports walking for a few seconds (QROWD's rides: 3–4 s, medium then
  /// low confidence, then the ride again): nothing is given back, and the hold goes on. A second
  /// walking report of another confidence does not restart the confirmation.
  func testABriefWalkingReportInARideGivesNothingBack() {
    var gate = RidingStepGate()
    gate.noteActivity(Self.cycling(.high, at: 0))
    XCTAssertEqual(Self.offer(Self.steps(from: 0.5, to: 30), to: &gate), [])
    gate.noteActivity(Self.walking(at: 30))
    gate.advance(to: 33)
    gate.noteActivity(ActivityEstimate(walking: true, confidence: .low, startTime: 33))
    XCTAssertEqual(Self.offer(Self.steps(from: 30, to: 34), to: &gate), [])
    gate.advance(to: 34)
    gate.noteActivity(Self.cycling(.high, at: 34))
    gate.advance(to: 60)
    XCTAssertEqual(Self.offer(Self.steps(from: 34, to: 60), to: &gate), [])
    XCTAssertTrue(gate.isHolding)
    XCTAssertEqual(gate.releasedSteps, 0)
    // A walk that lasts: confirmed 5 s after its first report, although a low-confidence
    // report came in between.
    gate.noteActivity(Self.walking(at: 60))
    gate.advance(to: 62)
    gate.noteActivity(ActivityEstimate(walking: true, confidence: .low, startTime: 62))
    // A doubtful report of a ride (as a walk starts or stops) does not cancel it either.
    gate.noteActivity(Self.cycling(.medium, at: 63))
    gate.advance(to: 65)
    XCTAssertEqual(Self.drain(&gate), Self.steps(from: 48, to: 60))
  }

  /// Rest reported while a walking report waits for its confirmation drops what was held (it may
  /// be a walking flicker as a rider brakes: the gate never counts more than ending the hold at
  /// the first rest would). The stop it begins holds the steps found after it; a walk confirmed
  /// then gives those back.
  func testRestWhileAWalkIsConfirmedDropsTheHeldSteps() {
    var gate = Self.gateTreatingEveryHoldAsARide()
    gate.noteActivity(Self.cycling(.high, at: 0))
    XCTAssertEqual(Self.offer(Self.steps(from: 0.5, to: 20), to: &gate), [])
    gate.noteActivity(Self.walking(at: 20))
    gate.advance(to: 22)
    gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 22))
    gate.advance(to: 40)
    XCTAssertEqual(Self.drain(&gate), [])
    XCTAssertEqual(gate.withheldSteps, 39)
    XCTAssertTrue(gate.isHolding)
    gate.advance(to: 142)
    XCTAssertFalse(gate.isHolding, "a stop of 120 s with no ride reported")
    XCTAssertEqual(Self.drain(&gate), [])
    XCTAssertEqual(Self.offer([142.5], to: &gate), [142.5])

    var walkGoesOn = Self.gateTreatingEveryHoldAsARide()
    walkGoesOn.noteActivity(Self.cycling(.high, at: 0))
    XCTAssertEqual(Self.offer(Self.steps(from: 0.5, to: 20), to: &walkGoesOn), [])
    walkGoesOn.noteActivity(Self.walking(at: 20))
    walkGoesOn.noteActivity(ActivityEstimate(stationary: true, confidence: .low, startTime: 22))
    XCTAssertEqual(Self.offer(Self.steps(from: 22, to: 24), to: &walkGoesOn), [])
    Self.confirmWalking(at: 24, in: &walkGoesOn)
    XCTAssertEqual(Self.drain(&walkGoesOn), Self.steps(from: 22, to: 24))
  }

  /// The clock restarts lower while a walking report waits: the confirmation starts again on the
  /// new clock, and the old clock's steps are not given back. A sample only a little earlier than
  /// the report (out of order) restarts nothing.
  func testAClockRestartWhileAWalkIsConfirmed() {
    var gate = Self.gateTreatingEveryHoldAsARide()
    gate.noteActivity(Self.cycling(.high, at: 1000))
    XCTAssertEqual(Self.offer([1001, 1002], to: &gate), [])
    gate.noteActivity(Self.walking(at: 1003))
    gate.advance(to: 3)
    gate.advance(to: 7.9)
    XCTAssertEqual(Self.drain(&gate), [])
    XCTAssertTrue(gate.isHolding)
    gate.advance(to: 8)
    XCTAssertEqual(Self.drain(&gate), [], "the old clock's steps are outside the report's window")
    XCTAssertEqual(gate.withheldSteps, 2)
    XCTAssertFalse(gate.isHolding)

    gate.noteActivity(Self.cycling(.high, at: 20))
    XCTAssertEqual(Self.offer([21, 22], to: &gate), [])
    gate.noteActivity(Self.walking(at: 50))
    gate.advance(to: 49.9)
    gate.advance(to: 54.95)
    XCTAssertTrue(gate.isHolding, "confirmed 5 s after the report, not after the late sample")
    gate.advance(to: 55)
    XCTAssertFalse(gate.isHolding)
    XCTAssertEqual(Self.drain(&gate), [], "held steps older than the window are dropped")
  }

  /// A caller that never advances the gate: the steps' own times confirm the walking report.
  func testStepTimesConfirmAWalkWithoutAdvance() {
    var gate = RidingStepGate()
    gate.noteActivity(Self.cycling(.high, at: 0))
    XCTAssertEqual(Self.offer(Self.steps(from: 0.5, to: 10), to: &gate), [])
    gate.noteActivity(Self.walking(at: 10))
    XCTAssertEqual(Self.offer(Self.steps(from: 10, to: 15), to: &gate), [])
    XCTAssertEqual(
      Self.offer([15], to: &gate), Self.steps(from: 0.5, to: 15.5),
      "the step 5 s after the report confirms it, and passes after the ones held")
    XCTAssertEqual(Self.offer([15.5], to: &gate), [15.5])
  }

  /// The input ends while a walking report waits for its confirmation: `finish` gives the held
  /// steps back (nothing contradicted the report).
  func testFinishGivesBackWhatAWalkNotYetConfirmedHeld() {
    var gate = RidingStepGate()
    gate.noteActivity(Self.cycling(.high, at: 0))
    XCTAssertEqual(Self.offer(Self.steps(from: 0.5, to: 12), to: &gate), [])
    gate.noteActivity(Self.walking(at: 12))
    gate.advance(to: 14)
    XCTAssertEqual(Self.drain(&gate), [])
    gate.finish()
    XCTAssertEqual(Self.drain(&gate), Self.steps(from: 0.5, to: 12))
    XCTAssertFalse(gate.isHolding)
    gate.finish()
    XCTAssertEqual(Self.drain(&gate), [], "nothing waits any more")
  }

  /// A hold that ends less than a minute after it started was a guess, not a ride (the first
  /// seconds of a walk after a stop, taken for a vehicle): at rest or at a confirmed walk every
  /// step it held comes back, not only the release window's. A longer hold is a ride.
  func testAHoldShorterThanAMinuteGivesEverythingBack() {
    var gate = RidingStepGate()
    gate.noteActivity(Self.cycling(.high, at: 0))
    XCTAssertEqual(Self.offer(Self.steps(from: 0.5, to: 20), to: &gate), [])
    gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 20))
    XCTAssertEqual(Self.drain(&gate), Self.steps(from: 0.5, to: 20), "rest after 20 s")
    XCTAssertFalse(gate.isHolding)

    gate.noteActivity(Self.cycling(.high, at: 100))
    XCTAssertEqual(Self.offer(Self.steps(from: 100.5, to: 150), to: &gate), [])
    Self.confirmWalking(at: 150, in: &gate)
    XCTAssertEqual(
      Self.drain(&gate), Self.steps(from: 100.5, to: 150), "walking after 50 s: all, not 12 s")

    gate.noteActivity(Self.cycling(.high, at: 200))
    XCTAssertEqual(Self.offer(Self.steps(from: 200.5, to: 270), to: &gate), [])
    gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 270))
    XCTAssertEqual(Self.drain(&gate), [], "a 70 s ride ended at rest")
    XCTAssertEqual(gate.releasedSteps, 39 + 99)

    // A short hold of steps at 5 steps/s, its walk confirmed 5 s after a report at 59.9 s: every
    // step fits the gate's memory and comes back.
    var fast = RidingStepGate()
    fast.noteActivity(Self.cycling(.high, at: 1000))
    let quick = Array(stride(from: 1000.2, to: 1064.9, by: 0.2))
    XCTAssertEqual(Self.offer(Array(quick.prefix { $0 < 1059.9 }), to: &fast), [])
    fast.noteActivity(Self.walking(at: 1059.9))
    XCTAssertEqual(Self.offer(Array(quick.drop { $0 < 1059.9 }), to: &fast), [])
    fast.advance(to: 1064.9)
    XCTAssertEqual(Self.drain(&fast), quick)
    XCTAssertEqual(fast.withheldSteps, 0)

    // A clock restart during a hold: the hold's start was on the old clock, so a ride that goes
    // on for minutes on the new clock is not taken for a short one.
    var restarted = RidingStepGate()
    restarted.noteActivity(Self.cycling(.high, at: 1000))
    XCTAssertEqual(Self.offer([1001, 1002], to: &restarted), [])
    XCTAssertEqual(Self.offer(Self.steps(from: 3, to: 600), to: &restarted), [])
    restarted.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 600))
    XCTAssertEqual(Self.drain(&restarted), [], "a ten-minute ride on the new clock")

    // Hostile values are clamped: NaN is the default (60 s), −1 is 0 (every hold is a ride),
    // ∞ is 600 s.
    for (shortest, givesBack) in [(Double.nan, true), (-1, false), (.infinity, true)] {
      var parameters = RidingStepGate.Parameters()
      parameters.shortestRide = shortest
      var gate = RidingStepGate(parameters: parameters)
      gate.noteActivity(Self.cycling(.high, at: 0))
      XCTAssertEqual(Self.offer([1, 2], to: &gate), [])
      gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 30))
      XCTAssertEqual(Self.drain(&gate), givesBack ? [1, 2] : [], "shortestRide \(shortest)")
    }
  }

  /// Rest drops what was held; a walk that follows at once counts from its own steps only.
  func testRestDropsWhatWasHeld() {
    var gate = Self.gateTreatingEveryHoldAsARide()
    gate.noteActivity(Self.cycling(.high, at: 0))
    XCTAssertEqual(Self.offer([1, 2, 3], to: &gate), [])
    gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 10))
    XCTAssertEqual(gate.heldStepCount, 0)
    XCTAssertEqual(gate.withheldSteps, 3)
    Self.confirmWalking(at: 12, in: &gate)
    XCTAssertEqual(Self.drain(&gate), [], "nothing is left to give back after rest")
    XCTAssertFalse(gate.isHolding)
    XCTAssertEqual(Self.offer([12.5], to: &gate), [12.5])
  }

  /// A bicycle waiting at a light reads as rest. Rest begins a stop: the pedalling that follows
  /// is held, and once the ride is reported again it is the ride's and stays out, instead of
  /// counting until the classifier is sure of the ride. A stop that lasts the longest stop
  /// (120 s) with no ride reported ends the hold.
  func testABicycleWaitingAtALightIsStillARide() {
    var gate = RidingStepGate()
    gate.noteActivity(Self.cycling(.high, at: 0))
    XCTAssertEqual(Self.offer(Self.steps(from: 0.5, to: 100), to: &gate), [])
    gate.noteActivity(ActivityEstimate(stationary: true, confidence: .medium, startTime: 100))
    gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 102))
    gate.advance(to: 130)
    XCTAssertTrue(gate.isHolding, "30 s at a light")
    XCTAssertEqual(gate.withheldSteps, 199, "the ride's steps are dropped at the stop")
    // Pedalling again from 130 s; the classifier is sure of the ride at 134 s.
    XCTAssertEqual(Self.offer(Self.steps(from: 130.5, to: 134), to: &gate), [])
    gate.noteActivity(ActivityEstimate(unknown: true, startTime: 132))
    gate.noteActivity(Self.cycling(.high, at: 134))
    XCTAssertEqual(Self.offer(Self.steps(from: 134, to: 300), to: &gate), [])
    // The next light, 166 s after the ride went on: a ride, not a guess; its steps stay out.
    gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 300))
    XCTAssertEqual(gate.heldStepCount, 0)
    gate.advance(to: 419.99)
    XCTAssertTrue(gate.isHolding)
    gate.advance(to: 420)
    XCTAssertFalse(gate.isHolding, "a stop of 120 s with no ride reported: the ride is over")
    XCTAssertEqual(gate.releasedSteps, 0)
    XCTAssertEqual(gate.withheldSteps, 199 + 7 + 332)
    XCTAssertEqual(Self.offer([420.5], to: &gate), [420.5])

    // A step's time ends the stop too when the caller does not advance the gate; what the stop
    // held comes back then.
    var unadvanced = RidingStepGate()
    unadvanced.noteActivity(Self.cycling(.high, at: 0))
    unadvanced.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 70))
    XCTAssertEqual(Self.offer([189.5], to: &unadvanced), [])
    XCTAssertEqual(Self.offer([190], to: &unadvanced), [189.5, 190])
  }

  /// The rider gets off at a stop and walks. However the classifier reports the walk's start,
  /// every step found during the stop comes back, as the old rule (rest ends the hold) counted
  /// them, only later: the reports below are those seen on QROWD or those a review of the rule
  /// constructed.
  func testAWalkAfterAStopKeepsEveryStep() {
    /// A gate after a 100 s ride that stopped at 100 s.
    func stopped() -> RidingStepGate {
      var gate = RidingStepGate()
      gate.noteActivity(Self.cycling(.high, at: 0))
      XCTAssertEqual(Self.offer(Self.steps(from: 0.5, to: 100), to: &gate), [])
      gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 100))
      return gate
    }
    func rest(_ confidence: ActivityEstimate.Confidence, at time: Double) -> ActivityEstimate {
      ActivityEstimate(stationary: true, confidence: confidence, startTime: time)
    }

    // Walking from 130 s, rest still reported with less confidence at 132 s, walking reported
    // at 136 s and confirmed at 141 s: every step since 130 s, at 141 s.
    var gate = stopped()
    XCTAssertEqual(Self.offer(Self.steps(from: 130, to: 132), to: &gate), [])
    gate.noteActivity(rest(.low, at: 132))
    XCTAssertEqual(Self.offer(Self.steps(from: 132, to: 141), to: &gate), [])
    gate.noteActivity(Self.walking(at: 136))
    gate.advance(to: 141)
    XCTAssertEqual(Self.drain(&gate), Self.steps(from: 130, to: 141))
    XCTAssertFalse(gate.isHolding)
    XCTAssertEqual(Self.offer([141.5], to: &gate), [141.5])

    // Reported 14 s after the walk began: more than the release window, all the same.
    gate = stopped()
    XCTAssertEqual(Self.offer(Self.steps(from: 150, to: 169), to: &gate), [])
    gate.noteActivity(Self.walking(at: 164))
    gate.advance(to: 169)
    XCTAssertEqual(Self.drain(&gate), Self.steps(from: 150, to: 169))

    // A walking report that rest contradicts, then walking again: the first steps still come.
    gate = stopped()
    XCTAssertEqual(Self.offer(Self.steps(from: 144, to: 150), to: &gate), [])
    gate.noteActivity(Self.walking(at: 150))
    gate.noteActivity(rest(.low, at: 152))
    gate.noteActivity(Self.walking(at: 158))
    XCTAssertEqual(Self.offer(Self.steps(from: 150, to: 163), to: &gate), [])
    gate.advance(to: 163)
    XCTAssertEqual(Self.drain(&gate), Self.steps(from: 144, to: 163))

    // The classifier guesses a vehicle as the walk begins, then rest, then walking: the guess
    // is a ride timed from its report, too short to be one, and gives everything back.
    gate = stopped()
    XCTAssertEqual(Self.offer(Self.steps(from: 148, to: 150), to: &gate), [])
    gate.noteActivity(ActivityEstimate(automotive: true, confidence: .high, startTime: 150))
    XCTAssertEqual(Self.offer(Self.steps(from: 150, to: 152), to: &gate), [])
    gate.noteActivity(rest(.medium, at: 152))
    XCTAssertEqual(Self.drain(&gate), Self.steps(from: 148, to: 152))
    gate.noteActivity(Self.walking(at: 156))
    XCTAssertEqual(
      Self.offer(Self.steps(from: 152, to: 160), to: &gate), Self.steps(from: 152, to: 160))

    // The walk begins 5 s before the stop's end and is reported after it: the stop's end gives
    // its first steps back, and the rest pass.
    gate = stopped()
    XCTAssertEqual(Self.offer(Self.steps(from: 215, to: 220), to: &gate), [])
    gate.advance(to: 220)
    XCTAssertEqual(Self.drain(&gate), Self.steps(from: 215, to: 220))
    XCTAssertEqual(
      Self.offer(Self.steps(from: 220, to: 222), to: &gate), Self.steps(from: 220, to: 222))
    gate.noteActivity(Self.walking(at: 221))
    XCTAssertFalse(gate.isHolding)

    // A walk reported, rest as the stop ends, walking again: nothing lost.
    gate = stopped()
    XCTAssertEqual(Self.offer(Self.steps(from: 212, to: 218), to: &gate), [])
    gate.noteActivity(Self.walking(at: 218))
    XCTAssertEqual(Self.offer(Self.steps(from: 218, to: 220), to: &gate), [])
    gate.noteActivity(rest(.low, at: 220))
    gate.advance(to: 220)
    gate.noteActivity(Self.walking(at: 222))
    XCTAssertEqual(Self.offer([220, 220.5], to: &gate), Self.steps(from: 212, to: 221))

    // The recording ends during the stop: what it held is counted.
    gate = stopped()
    XCTAssertEqual(Self.offer(Self.steps(from: 150, to: 156), to: &gate), [])
    gate.finish()
    XCTAssertEqual(Self.drain(&gate), Self.steps(from: 150, to: 156))
    XCTAssertEqual(gate.withheldSteps, 199)
  }

  /// `longestStop` 0 ends the hold at the first report of rest; hostile values are clamped (NaN
  /// is the default, 120 s; ∞ is 600 s). A report of rest without a usable time cannot be timed
  /// and ends the hold. A clock restart during a stop times the stop from the new clock.
  func testTheLongestStopParameterAndHostileTimes() {
    for (stop, effective) in [
      (0.0, nil), (-1, nil), (.nan, 120), (.infinity, 600), (30, 30),
    ] as [(Double, Double?)] {
      var parameters = RidingStepGate.Parameters()
      parameters.longestStop = stop
      var gate = RidingStepGate(parameters: parameters)
      gate.noteActivity(Self.cycling(.high, at: 0))
      gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 100))
      guard let effective else {
        XCTAssertFalse(gate.isHolding, "longestStop \(stop)")
        continue
      }
      gate.advance(to: 100 + effective - 0.1)
      XCTAssertTrue(gate.isHolding, "longestStop \(stop)")
      gate.advance(to: 100 + effective)
      XCTAssertFalse(gate.isHolding, "longestStop \(stop)")
    }

    var untimed = RidingStepGate()
    untimed.noteActivity(Self.cycling(.high, at: 0))
    untimed.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: .nan))
    XCTAssertFalse(untimed.isHolding)

    var restarted = RidingStepGate()
    restarted.noteActivity(Self.cycling(.high, at: 1000))
    restarted.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 1100))
    XCTAssertEqual(Self.offer([1101, 1102], to: &restarted), [])
    restarted.advance(to: 5)
    XCTAssertFalse(restarted.isHolding, "a new timeline ends the stop")
    XCTAssertEqual(Self.drain(&restarted), [1101, 1102])
  }

  /// The stop never counts more of a ride's steps than the rule it replaced (rest ends the hold
  /// at once, and its held steps are dropped), whatever follows a walking flicker as the rider
  /// brakes. Cases from reviews of the rule, each run both ways.
  func testAStopNeverCountsMoreThanRestEndingTheHold() {
    var old = RidingStepGate.Parameters()
    old.longestStop = 0
    /// Pedalling every 0.5 s to 100 s, walking reported at 97 s, rest at 100 s, then `then`
    /// (which offers steps without taking them); returns every step counted.
    func countedSteps(
      _ parameters: RidingStepGate.Parameters, then: (inout RidingStepGate) -> Void
    ) -> [Double] {
      var gate = RidingStepGate(parameters: parameters)
      gate.noteActivity(Self.cycling(.high, at: 0))
      var counted = Self.offer(Self.steps(from: 0.5, to: 97), to: &gate)
      gate.noteActivity(Self.walking(at: 97))
      counted += Self.offer(Self.steps(from: 97, to: 100), to: &gate)
      gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 100))
      then(&gate)
      counted += Self.drain(&gate)
      return counted
    }
    let cases: [(String, (inout RidingStepGate) -> Void)] = [
      ("standing still for the stop", { $0.advance(to: 400) }),
      ("the recording ends", { $0.finish() }),
      (
        "pushing off after a short light: walking for 5 s, then the ride",
        { gate in
          for time in Self.steps(from: 105, to: 106) { gate.offer(stepTime: time) }
          gate.noteActivity(Self.walking(at: 106))
          for time in Self.steps(from: 106, to: 111.5) { gate.offer(stepTime: time) }
          gate.advance(to: 111.5)
          gate.noteActivity(Self.cycling(.high, at: 112))
        }
      ),
      (
        "walking reported again 1 s after the rest, the input ending",
        { gate in
          gate.noteActivity(Self.walking(at: 101))
          for time in Self.steps(from: 101, to: 103) { gate.offer(stepTime: time) }
          gate.finish()
        }
      ),
      (
        "pedalling on, and a light 40 s later",
        { gate in
          for time in Self.steps(from: 130, to: 134) { gate.offer(stepTime: time) }
          gate.noteActivity(Self.cycling(.high, at: 134))
          for time in Self.steps(from: 134, to: 174) { gate.offer(stepTime: time) }
          gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 174))
          gate.advance(to: 400)
        }
      ),
      (
        "a walking flicker while pedalling on",
        { gate in
          for time in Self.steps(from: 130, to: 131) { gate.offer(stepTime: time) }
          gate.noteActivity(Self.walking(at: 131))
          for time in Self.steps(from: 131, to: 136) { gate.offer(stepTime: time) }
          gate.advance(to: 136)
        }
      ),
    ]
    for (name, then) in cases {
      let stop = countedSteps(.default, then: then)
      let restEnds = countedSteps(old, then: then)
      XCTAssertLessThanOrEqual(stop.count, restEnds.count, name)
      XCTAssertTrue(Set(stop).isSubset(of: restEnds), name)
      XCTAssertLessThanOrEqual(stop.filter { $0 < 100 }.count, 1, "the ride's steps: \(name)")
    }
  }

  /// A clock restart during a stop, with a walk found but not yet confirmed: the stop's steps
  /// come back (the old rule counted them), and the new clock's steps pass.
  func testANewTimelineDuringAStopGivesItsStepsBack() {
    var gate = RidingStepGate()
    gate.noteActivity(Self.cycling(.high, at: 0))
    gate.noteActivity(ActivityEstimate(stationary: true, confidence: .high, startTime: 100))
    XCTAssertEqual(Self.offer(Self.steps(from: 110, to: 150), to: &gate), [])
    XCTAssertEqual(
      Self.offer([5, 5.5], to: &gate), Self.steps(from: 110, to: 150) + [5, 5.5],
      "a step on the new clock")
    XCTAssertFalse(gate.isHolding)
    XCTAssertEqual(gate.withheldSteps, 0)
  }

  /// Memory is fixed: an hour of pedalling keeps at most the longest stretch the gate may give
  /// back at once (the longest stop, the shortest ride and the confirmation, 185 s, at 5
  /// steps/s, plus 16), and the rest is counted as withheld.
  func testAnHourOfPedallingHoldsABoundedNumberOfSteps() {
    var gate = RidingStepGate()
    gate.noteActivity(Self.cycling(.high, at: 0))
    let ride = Array(stride(from: 0.25, to: 3600, by: 0.25))
    XCTAssertEqual(Self.offer(ride, to: &gate), [])
    XCTAssertLessThanOrEqual(gate.heldStepCount, 16 + 925)
    XCTAssertEqual(gate.withheldSteps + gate.heldStepCount, ride.count)
    Self.confirmWalking(at: 3600, in: &gate)
    XCTAssertEqual(Self.drain(&gate), Array(ride.suffix(48)), "12 s at 4 steps/s")
  }

  /// The detector's clock restarted lower (see StepDetector's new timelines): what was held on
  /// the old clock is dropped, not given back against a report on the new one.
  func testANewTimelineDropsTheOldClocksSteps() {
    var gate = RidingStepGate()
    gate.noteActivity(Self.cycling(.high, at: 1000))
    XCTAssertEqual(Self.offer([1001, 1002], to: &gate), [])
    XCTAssertEqual(Self.offer([3, 4], to: &gate), [])
    XCTAssertEqual(gate.heldStepCount, 2)
    XCTAssertEqual(gate.withheldSteps, 2)
    Self.confirmWalking(at: 6, in: &gate)
    XCTAssertEqual(Self.drain(&gate), [3, 4])
  }

  func testHostileParametersAndTimes() {
    for window in [Double.nan, -1, 0, .infinity, 1e300] {
      var parameters = RidingStepGate.Parameters()
      parameters.releaseWindow = window
      parameters.shortestRide = 0
      var gate = RidingStepGate(parameters: parameters)
      gate.noteActivity(Self.cycling(.high, at: 0))
      XCTAssertEqual(Self.offer([.nan, .infinity, -.infinity, 1, 2], to: &gate), [])
      gate.noteActivity(Self.walking(at: 2))
      // The confirmation is clamped to the window: with a window of 0 the release is at once.
      let immediate = Self.drain(&gate)
      gate.advance(to: 2 + 5)
      let givenBack = immediate + Self.drain(&gate)
      // NaN is the default window (both steps back), 0 gives back only the step at the report,
      // and anything longer is clamped to 60 s.
      XCTAssertEqual(givenBack, window == 0 || window == -1 ? [2] : [1, 2], "window \(window)")
      XCTAssertEqual(immediate.isEmpty, !(window == 0 || window == -1), "window \(window)")
    }
    for confirmation in [Double.nan, -1, 0, .infinity, 1e300] {
      var parameters = RidingStepGate.Parameters()
      parameters.releaseConfirmation = confirmation
      var gate = RidingStepGate(parameters: parameters)
      gate.noteActivity(Self.cycling(.high, at: 0))
      XCTAssertEqual(Self.offer([1, 2], to: &gate), [])
      gate.noteActivity(Self.walking(at: 2))
      for time in [Double.nan, .infinity, -.infinity] { gate.advance(to: time) }
      // NaN is the default (5 s); 0 and −1 release at once; longer ones wait for the window
      // (12 s), to which they are clamped.
      let waited: Double = confirmation.isNaN ? 5 : confirmation <= 0 ? 0 : 12
      if waited > 0 {
        gate.advance(to: 2 + waited - 0.01)
        XCTAssertEqual(Self.drain(&gate), [], "confirmation \(confirmation)")
      }
      gate.advance(to: 2 + waited)
      XCTAssertEqual(Self.drain(&gate), [1, 2], "confirmation \(confirmation)")
    }
    // Reports without a usable time neither trap nor lose steps: a walking report that cannot
    // date the held steps gives all of them back.
    var gate = RidingStepGate()
    gate.noteActivity(ActivityEstimate(cycling: true, confidence: .high, startTime: .nan))
    XCTAssertEqual(Self.offer([1, 2], to: &gate), [])
    gate.noteActivity(Self.walking(at: .nan))
    XCTAssertEqual(Self.drain(&gate), [1, 2])
    XCTAssertEqual(Self.offer([3], to: &gate), [3])
  }
}
