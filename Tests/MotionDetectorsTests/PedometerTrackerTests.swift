// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import XCTest
import _MotionTestSupport

/// `PedometerTracker` is the one place that wires the step detector, the activity classifier and
/// the riding gate: these tests hold it to the wiring each caller used to write by hand. That the
/// gate leaves a real ride out is checked on shared QROWD rides (`RidingStepGateSharedDataTests`,
/// `CMPedometerRideTests`, `HistoryServiceRideTests`), which go through this type.
final class PedometerTrackerTests: XCTestCase {
  /// Walks, rests, a car ride and a shake, in a seeded random order, at a random rate.
  private func mixedDay(seed: UInt64) -> SyntheticGait.Samples {
    var random = SplitMix64(seed: seed)
    var samples: SyntheticGait.Samples = []
    var start = 0.0
    for _ in 0..<6 {
      let rate = [50.0, 100.0][Int.random(in: 0...1, using: &random)]
      let piece: SyntheticGait.Samples
      switch Int.random(in: 0...3, using: &random) {
      case 0:
        piece = SyntheticGait.walk(
          cadence: Double.random(in: 1.4...2.2, using: &random), seconds: 40, rate: rate,
          using: &random)
      case 1: piece = SyntheticGait.rest(seconds: 20, rate: rate, using: &random)
      case 2: piece = SyntheticGait.carRide(seconds: 40, rate: rate, using: &random)
      default:
        piece = SyntheticGait.shake(frequency: 3, seconds: 10, rate: rate, using: &random)
      }
      let offset = start - (piece.first?.time ?? 0)
      samples += piece.map { ($0.time + offset, $0.acceleration) }
      start = (samples.last?.time ?? start) + 0.01
    }
    return samples
  }

  /// The steps counted, the steps detected and the activity changes, by the tracker and by the
  /// three detectors wired by hand (offer each step, note each estimate, advance the gate to the
  /// sample's time, take what the gate lets through; at the end the detector's queued steps), are the same.
  func testTheTrackerCountsWhatItsPartsWiredByHandCount() {
    // Steps the gate held (given back or not) over the rounds: the days must exercise the gate.
    var heldOverRounds = 0
    for round in 0..<4 {
      let seed = testSeed() &+ UInt64(round)
      let samples = mixedDay(seed: seed)

      var tracker = PedometerTracker()
      var trackerCounted: [Double] = []
      var trackerDetected: [Double] = []
      var trackerActivities: [ActivityEstimate] = []
      var detector = StepDetector()
      var classifier = ActivityClassifier()
      var gate = RidingStepGate()
      var handCounted: [Double] = []
      var handDetected: [Double] = []
      var handActivities: [ActivityEstimate] = []
      for (time, acceleration) in samples {
        let update = tracker.process(time: time, acceleration: acceleration)
        if let step = update.detectedStep { trackerDetected.append(step) }
        if let activity = update.activity { trackerActivities.append(activity) }
        while let step = tracker.nextStep() { trackerCounted.append(step) }

        if let step = detector.process(time: time, acceleration: acceleration) {
          handDetected.append(step)
          gate.offer(stepTime: step)
        }
        if let estimate = classifier.process(time: time, acceleration: acceleration) {
          handActivities.append(estimate)
          gate.noteActivity(estimate)
        }
        gate.advance(to: time)
        while let step = gate.nextStep() { handCounted.append(step) }
      }
      while let step = tracker.flushQueuedStep() {
        trackerDetected.append(step)
        while let counted = tracker.nextStep() { trackerCounted.append(counted) }
      }
      tracker.finish()
      while let counted = tracker.nextStep() { trackerCounted.append(counted) }
      while let step = detector.takeQueuedStep() {
        handDetected.append(step)
        gate.offer(stepTime: step)
        while let counted = gate.nextStep() { handCounted.append(counted) }
      }
      gate.finish()
      while let counted = gate.nextStep() { handCounted.append(counted) }
      XCTAssertGreaterThan(handDetected.count, 0, "seed \(seed): the day has steps")
      XCTAssertEqual(trackerDetected, handDetected, "seed \(seed)")
      XCTAssertEqual(trackerCounted, handCounted, "seed \(seed)")
      XCTAssertEqual(trackerActivities, handActivities, "seed \(seed)")
      XCTAssertEqual(tracker.currentActivity, classifier.current, "seed \(seed)")
      XCTAssertEqual(tracker.withheldSteps, gate.withheldSteps, "seed \(seed)")
      XCTAssertEqual(tracker.releasedSteps, gate.releasedSteps, "seed \(seed)")
      XCTAssertEqual(tracker.skippedSamples, detector.skippedSamples, "seed \(seed)")
      heldOverRounds += gate.withheldSteps + gate.releasedSteps
    }
    XCTAssertGreaterThan(heldOverRounds, 0, "seed \(testSeed()): the gate held steps")
  }

  /// Without the gate every step the detector finds is counted, at once and in order, the steps
  /// still queued at the end included; the classifier still reports the activity.
  func testWithoutTheGateEveryDetectedStepCounts() {
    let seed = testSeed()
    let samples = mixedDay(seed: seed)
    var tracker = PedometerTracker(ridingGate: nil)
    var detector = StepDetector()
    var counted: [Double] = []
    var alone: [Double] = []
    var activityChanges = 0
    for (time, acceleration) in samples {
      let update = tracker.process(time: time, acceleration: acceleration)
      if update.activity != nil { activityChanges += 1 }
      var countedNow: [Double] = []
      while let step = tracker.nextStep() { countedNow.append(step) }
      XCTAssertEqual(countedNow, update.detectedStep.map { [$0] } ?? [], "seed \(seed)")
      counted += countedNow
      if let step = detector.process(time: time, acceleration: acceleration) { alone.append(step) }
    }
    while tracker.flushQueuedStep() != nil {
      while let step = tracker.nextStep() { counted.append(step) }
    }
    while let step = detector.takeQueuedStep() { alone.append(step) }
    XCTAssertEqual(counted, alone, "seed \(seed)")
    XCTAssertGreaterThan(activityChanges, 0, "seed \(seed)")
    XCTAssertEqual(tracker.withheldSteps, 0, "seed \(seed)")
  }

  /// Gyroscope readings reach the detector: on pocket stairs whose |a| shows one leg's steps, the
  /// thigh's swing adds the other leg's, as with the detector alone
  /// (`StepDetectorGyroscopeTests.testPocketStairsGetTheStepsOfTheHiddenLeg`).
  func testGyroscopeReadingsReachTheStepDetector() {
    let seed = testSeed()
    var random = SplitMix64(seed: seed)
    let samples = SyntheticGait.impacts(
      frequency: 0.9, secondPhase: 0.5, secondHeight: 0, amplitude: 1.0, seconds: 60,
      using: &random)
    let swing = StepDetectorGyroscopeTests.swing(
      frequency: 0.9, amplitude: 2, seconds: 60, using: &random)
    var tracker = PedometerTracker(ridingGate: nil)
    var counted: [Double] = []
    StepDetectorGyroscopeTests.interleave(samples, rates: swing) { time, rate in
      tracker.process(time: time, rotationRate: rate)
    } accelerometer: { time, acceleration in
      tracker.process(time: time, acceleration: acceleration)
      while let step = tracker.nextStep() { counted.append(step) }
    }
    while tracker.flushQueuedStep() != nil {
      while let step = tracker.nextStep() { counted.append(step) }
    }
    let withGyroscope = StepDetectorGyroscopeTests.count(samples, rates: swing)
    let alone = StepDetectorGyroscopeTests.count(samples)
    XCTAssertEqual(counted, withGyroscope.steps, "seed \(seed)")
    XCTAssertGreaterThan(counted.count, alone.steps.count + 30, "seed \(seed)")
  }
}
