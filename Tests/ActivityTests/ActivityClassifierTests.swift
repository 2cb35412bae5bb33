// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import MotionDetectors

/// The classifier's mechanics (warm-up, switching delay, hysteresis, unknown, sample-rate
/// independence, automotive + stationary) with hand-made models, so the figures do not depend on
/// the trained coefficients.
final class ActivityClassifierTests: XCTestCase {
  private var handParameters: ActivityClassifier.Parameters {
    var p = ActivityClassifier.Parameters()
    p.model = ActivityTestSignals.restOrWalkModel
    return p
  }

  /// Rest, walking, rest (60 s each, 50 Hz): unknown until the first 5 s window, then exactly two
  /// changes of class, each reported within 10 s of the change in the signal (the target).
  func testSwitchesWithinTenSecondsWithoutFlicker() {
    let (timeline, estimates) = ActivityTestSignals.run(
      [(60, 0.002, 0), (60, 0.3, 1.9), (60, 0.002, 0)], rate: 50, parameters: handParameters)
    XCTAssertNil(
      timeline.first { $0.time < 4.9 }?.reported, "nothing is known before the first window")
    let firstStationary = timeline.first { $0.reported == .stationary }?.time ?? .infinity
    XCTAssertLessThanOrEqual(firstStationary, 10)
    let walkingAt = timeline.first { $0.time >= 60 && $0.reported == .walking }?.time ?? .infinity
    let restAt = timeline.first { $0.time >= 120 && $0.reported == .stationary }?.time ?? .infinity
    XCTAssertLessThanOrEqual(walkingAt - 60, 10)
    XCTAssertLessThanOrEqual(restAt - 120, 10)
    // Class changes (ignoring confidence changes): unknown → stationary → walking → stationary.
    var classes: [String] = []
    for e in estimates {
      let name =
        e.stationary ? "stationary" : e.walking ? "walking" : e.unknown ? "unknown" : "other"
      if classes.last != name { classes.append(name) }
    }
    XCTAssertEqual(classes, ["stationary", "walking", "stationary"])
    XCTAssertEqual(
      estimates.last?.confidence, .high, "a minute of clear rest is reported with high confidence")
  }

  /// Windows whose evidence alternates between two classes do not make the report flip back and
  /// forth: it may settle on either once, then holds.
  func testAlternatingEvidenceDoesNotFlicker() {
    var p = ActivityClassifier.Parameters()
    p.model = ActivityTestSignals.oneHotModel
    var classifier = ActivityClassifier(parameters: p)
    for i in 0..<30 {
      _ = classifier.process(features: ActivityTestSignals.oneHot(.walking), time: Double(i))
    }
    XCTAssertEqual(classifier.reported, .walking)
    var classChanges = 0
    var last = classifier.reported
    for i in 30..<330 {
      let activity: ActivityClass = i % 2 == 0 ? .running : .walking
      _ = classifier.process(features: ActivityTestSignals.oneHot(activity), time: Double(i))
      if classifier.reported != last { classChanges += 1 }
      last = classifier.reported
    }
    XCTAssertLessThanOrEqual(classChanges, 1, "the class flickered on alternating evidence")
  }

  /// A vehicle replaces another class after one window more than the other classes need
  /// (``ActivityClassifier/Parameters/vehicleConfirmWindows``): a pocketed phone shifted by a
  /// seated person gives vehicle-like windows one or two at a time, and rides last minutes.
  func testAVehicleNeedsOneWindowMoreToBeReported() {
    func windowsUntilReported(_ target: ActivityClass, vehicleWindows: Int) -> Int {
      var p = ActivityClassifier.Parameters()
      p.model = ActivityTestSignals.oneHotModel
      p.vehicleConfirmWindows = vehicleWindows
      var classifier = ActivityClassifier(parameters: p)
      for i in 0..<30 {
        _ = classifier.process(features: ActivityTestSignals.oneHot(.walking), time: Double(i))
      }
      XCTAssertEqual(classifier.reported, .walking)
      var windows = 0
      while classifier.reported != target && windows < 60 {
        _ = classifier.process(
          features: ActivityTestSignals.oneHot(target), time: Double(30 + windows))
        windows += 1
      }
      XCTAssertEqual(classifier.reported, target)
      return windows
    }
    XCTAssertEqual(ActivityClassifier.Parameters().vehicleConfirmWindows, 3)
    let withTwo = windowsUntilReported(.automotive, vehicleWindows: 2)
    XCTAssertEqual(windowsUntilReported(.automotive, vehicleWindows: 3), withTwo + 1)
    // Other classes are not affected.
    XCTAssertEqual(
      windowsUntilReported(.running, vehicleWindows: 3),
      windowsUntilReported(.running, vehicleWindows: 2))
  }

  /// One window of contrary evidence is not enough to switch (the evidence limit): two or more are.
  func testOneContraryWindowDoesNotSwitch() {
    var p = ActivityClassifier.Parameters()
    p.model = ActivityTestSignals.oneHotModel
    var classifier = ActivityClassifier(parameters: p)
    for i in 0..<30 {
      _ = classifier.process(features: ActivityTestSignals.oneHot(.stationary), time: Double(i))
    }
    _ = classifier.process(features: ActivityTestSignals.oneHot(.walking), time: 30)
    XCTAssertEqual(classifier.reported, .stationary)
    var switchedAfter = 1
    while classifier.reported != .walking && switchedAfter < 20 {
      _ = classifier.process(
        features: ActivityTestSignals.oneHot(.walking), time: Double(30 + switchedAfter))
      switchedAfter += 1
    }
    XCTAssertEqual(classifier.reported, .walking)
    XCTAssertLessThanOrEqual(switchedAfter, 4, "clear evidence switches within a few windows")
  }

  /// Windows through which the phone turns further than any vehicle's acceleration tilts it, or
  /// moves almost only along gravity (a lift), cannot move the filter between rest and a vehicle,
  /// whichever way the model leans: at rest it stays at rest, in a car it stays in the car. With
  /// the rules off, the same windows do switch it.
  func testTurningThePhoneOrRidingALiftDecidesNothingBetweenRestAndAVehicle() {
    func turned(_ activity: ActivityClass) -> [Double] {
      var f = ActivityTestSignals.oneHot(activity)
      f[ActivityFeatureExtractor.orientationChangeFeature] = -0.5  // 1 − 0.32: about 50° rms
      return f
    }
    func vertical(_ activity: ActivityClass) -> [Double] {
      var f = ActivityTestSignals.oneHot(activity)
      f[ActivityFeatureExtractor.verticalDeviationFeature] = -2  // 10 times the horizontal
      return f
    }
    var rulesOff = ActivityClassifier.Parameters()
    rulesOff.vehicleNeutralOrientationChange = 0
    rulesOff.vehicleNeutralVerticalRatio = 0
    for window in [turned, vertical] {
      var atRest = ActivityTestSignals.OneHotFeed()
      atRest.feed(.stationary, 30)
      atRest.feed(features: window(.automotive), 30)
      XCTAssertTrue(atRest.current.stationary, "at rest, the turns leave it at rest")
      XCTAssertFalse(atRest.current.automotive)

      var driving = ActivityTestSignals.OneHotFeed()
      driving.feed(.automotive, 60)
      driving.feed(features: window(.stationary), 30)
      XCTAssertTrue(driving.current.automotive, "in a car, the turns leave it in the car")
      XCTAssertFalse(driving.current.stationary)

      var switched = ActivityTestSignals.OneHotFeed(rulesOff)
      switched.feed(.stationary, 30)
      switched.feed(features: window(.automotive), 30)
      XCTAssertTrue(switched.current.automotive, "without the rules the evidence decides")
    }
  }

  /// A window whose |a| varies mostly below 0.6 Hz (a burst of shaking, a bump) is no evidence of
  /// walking or running, however much the model leans that way; with the rule off it is.
  func testSlowVariationIsNoGait() {
    var slow = ActivityTestSignals.oneHot(.walking)
    slow[ActivityFeatureExtractor.slowestBandShareFeature] = 0.8
    var atRest = ActivityTestSignals.OneHotFeed()
    atRest.feed(.stationary, 30)
    atRest.feed(features: slow, 20)
    XCTAssertFalse(atRest.current.walking)
    XCTAssertTrue(atRest.current.stationary)

    var ruleOff = ActivityClassifier.Parameters()
    ruleOff.largestSlowPowerShareOfAGait = 1
    var switched = ActivityTestSignals.OneHotFeed(ruleOff)
    switched.feed(.stationary, 30)
    switched.feed(features: slow, 20)
    XCTAssertTrue(switched.current.walking)
  }

  /// A vehicle that stops for 40 s stays automotive and adds the stationary flag; moving again
  /// clears it. Stationary evidence from the start is plain stationary (no vehicle).
  func testAutomotiveAndStationaryAtARedLight() {
    var classifier = ActivityTestSignals.OneHotFeed()
    func feed(_ activity: ActivityClass, _ windows: Int) { classifier.feed(activity, windows) }
    feed(.automotive, 60)
    XCTAssertTrue(classifier.current.automotive)
    XCTAssertFalse(classifier.current.stationary)
    feed(.stationary, 40)
    XCTAssertTrue(classifier.current.automotive, "a stop does not end the drive")
    XCTAssertTrue(classifier.current.stationary, "a stopped vehicle is also stationary")
    feed(.automotive, 10)
    XCTAssertTrue(classifier.current.automotive)
    XCTAssertFalse(classifier.current.stationary)
    // Leaving on foot, then resting: stationary without automotive.
    feed(.walking, 30)
    XCTAssertTrue(classifier.current.walking)
    feed(.stationary, 30)
    XCTAssertTrue(classifier.current.stationary)
    XCTAssertFalse(classifier.current.automotive)

    var fresh = ActivityTestSignals.OneHotFeed()
    fresh.feed(.stationary, 30)
    XCTAssertTrue(fresh.current.stationary)
    XCTAssertFalse(fresh.current.automotive)
  }

  /// Motion that looks like a ride but starts from rest and ends within seconds (shifting in a
  /// seat) is over once it ends: plain stationary again within seconds, not a vehicle waiting at a
  /// light for minutes. A ride from rest that lasts is confirmed, and its stops are then
  /// automotive + stationary; a ride entered on foot may stop at once (a bus at its stop).
  func testAShortRideFromRestIsNotAStoppedVehicle() {
    var classifier = ActivityTestSignals.OneHotFeed()
    func feed(_ activity: ActivityClass, _ windows: Int) { classifier.feed(activity, windows) }
    feed(.stationary, 60)
    // Eight windows of vehicle-like evidence from rest (the shared MotionSense sitting trials
    // hold such bursts), then rest again.
    feed(.automotive, 8)
    var windowsToStationary = 0
    while !(classifier.current.stationary && !classifier.current.automotive)
      && windowsToStationary < 60
    {
      feed(.stationary, 1)
      windowsToStationary += 1
    }
    XCTAssertLessThanOrEqual(
      windowsToStationary, 10, "a short burst from rest left a stopped vehicle behind")

    // A ride from rest that lasts a minute, then stops: a vehicle at a light.
    feed(.stationary, 60)
    feed(.automotive, 60)
    XCTAssertTrue(classifier.current.automotive)
    feed(.stationary, 30)
    XCTAssertTrue(classifier.current.automotive, "a confirmed ride stops and stays a vehicle")
    XCTAssertTrue(classifier.current.stationary)

    // On foot into a vehicle that moves briefly, then waits: still a vehicle.
    feed(.walking, 30)
    feed(.automotive, 8)
    XCTAssertTrue(classifier.current.automotive)
    feed(.stationary, 30)
    XCTAssertTrue(classifier.current.automotive, "entered on foot, the vehicle may stop at once")
  }

  /// An unconfirmed ride becomes a real one after about ``vehicleConfirmationTime`` (20 s), not
  /// at a constant rate from its first second: with every other way out of it closed, under 10 %
  /// of it is confirmed within 8 windows (a single state would confirm 34 %) and over 90 % within
  /// 40.
  func testARideIsConfirmedAfterLastingNotAtRandom() {
    var p = ActivityClassifier.Parameters()
    p.unconfirmedVehicleToStationary = 0
    p.stayProbability = 1
    let n = ActivityClassifier.stateCount
    let t = ActivityClassifier.transitions(p)
    var state = [Double](repeating: 0, count: n)
    state[ActivityClassifier.firstUnconfirmedStage] = 1
    var confirmed: [Double] = []
    for _ in 0..<40 {
      var next = [Double](repeating: 0, count: n)
      for from in 0..<n { for to in 0..<n { next[to] += state[from] * t[from * n + to] } }
      state = next
      confirmed.append(1 - state[ActivityClassifier.firstUnconfirmedStage...].reduce(0, +))
    }
    XCTAssertLessThan(confirmed[7], 0.10, "confirmed within 8 windows: \(confirmed[7])")
    XCTAssertGreaterThan(confirmed[39], 0.90, "confirmed within 40 windows: \(confirmed[39])")
  }

  /// Every row of the transition matrix is a probability distribution, and a vehicle is entered
  /// from rest only unconfirmed.
  func testTransitionsAreDistributions() {
    let p = ActivityClassifier.Parameters()
    let n = ActivityClassifier.stateCount
    let t = ActivityClassifier.transitions(p)
    for from in 0..<n {
      let row = t[(from * n)..<(from * n + n)]
      XCTAssertEqual(row.reduce(0, +), 1, accuracy: 1e-12, "row \(from)")
      XCTAssertTrue(row.allSatisfy { $0 >= 0 && $0 <= 1 }, "row \(from): \(Array(row))")
    }
    let stationary = ActivityClass.stationary.rawValue
    let moving = ActivityClass.automotive.rawValue
    XCTAssertEqual(t[stationary * n + moving], 0)
    XCTAssertEqual(t[stationary * n + ActivityClassifier.stoppedVehicle], 0)
    let first = ActivityClassifier.firstUnconfirmedStage
    XCTAssertGreaterThan(t[stationary * n + first], 0)
    for stage in first..<n {
      XCTAssertEqual(t[stage * n + ActivityClassifier.stoppedVehicle], 0, "stage \(stage)")
      XCTAssertGreaterThan(t[stage * n + stationary], 0, "stage \(stage)")
      XCTAssertGreaterThan(t[stage * n + (stage + 1 < n ? stage + 1 : moving)], 0, "stage \(stage)")
    }
  }

  /// Input far outside the training data (8 g shaking, mean |a| far from 1 g) turns the report to
  /// unknown within 10 s; rest afterwards brings a class back.
  func testOutlierInputBecomesUnknown() {
    var classifier = ActivityClassifier(parameters: handParameters)
    var t = 0.0
    while t < 30 {
      _ = classifier.process(
        time: t, acceleration: ActivityTestSignals.sample(time: t, amplitude: 0.002, frequency: 0))
      t += 0.02
    }
    XCTAssertEqual(classifier.reported, .stationary)
    var unknownAt: Double?
    while t < 60 {
      _ = classifier.process(time: t, acceleration: SIMD3(8 * sin(2 * Double.pi * 4 * t), 6, 0))
      if unknownAt == nil, classifier.current.unknown { unknownAt = t }
      t += 0.02
    }
    XCTAssertNotNil(unknownAt)
    XCTAssertLessThanOrEqual((unknownAt ?? .infinity) - 30, 10)
    XCTAssertEqual(classifier.current.confidence, .low)
  }

  /// The same signal at 15, 50 and 100 Hz gives the same classes, switching at times within 2 s of
  /// each other (the filter and grid make the features rate-independent; 2 s allows the grid's
  /// phase and the filter's discretisation).
  func testSampleRateIndependence() {
    let pieces: [(Double, Double, Double)] = [(40, 0.002, 0), (40, 0.3, 1.9), (40, 0.002, 0)]
    var switchTimes: [[Double]] = []
    for rate in [15.0, 50.0, 100.0] {
      let (timeline, _) = ActivityTestSignals.run(pieces, rate: rate, parameters: handParameters)
      var times: [Double] = []
      var last: ActivityClass?
      for mark in timeline where mark.reported != last {
        times.append(mark.time)
        last = mark.reported
      }
      switchTimes.append(times)
    }
    XCTAssertEqual(switchTimes[0].count, 3, "\(switchTimes)")
    for other in switchTimes.dropFirst() {
      XCTAssertEqual(other.count, switchTimes[0].count, "\(switchTimes)")
      for (a, b) in zip(switchTimes[0], other) {
        XCTAssertEqual(a, b, accuracy: 2, "\(switchTimes)")
      }
    }
  }

  /// Gaps, time going backwards and non-finite values restart the window instead of trapping or
  /// producing garbage; `reset()` returns to unknown.
  func testHostileInputRestartsTheWindow() {
    var classifier = ActivityClassifier(parameters: handParameters)
    for i in 0..<1000 {
      _ = classifier.process(time: Double(i) * 0.02, acceleration: SIMD3(0, -1, 0))
    }
    XCTAssertEqual(classifier.reported, .stationary)
    XCTAssertNil(
      classifier.process(time: 5, acceleration: SIMD3(0, -1, 0)), "time going back restarts")
    XCTAssertNil(classifier.process(time: 30, acceleration: SIMD3(.nan, -1, 0)))
    XCTAssertNil(classifier.process(time: .infinity, acceleration: SIMD3(0, -1, 0)))
    XCTAssertEqual(classifier.reported, .stationary, "the report holds while the window refills")
    classifier.reset()
    XCTAssertTrue(classifier.current.unknown)
    XCTAssertNil(classifier.reported)
  }

  /// The feature extractor yields one vector per second once 5 s are in, whatever the rate.
  func testFeatureCadence() {
    for rate in [15.0, 50.0, 200.0] {
      var extractor = ActivityFeatureExtractor()
      var times: [Double] = []
      for i in 0..<Int(20 * rate) {
        let t = Double(i) / rate
        if extractor.process(
          time: t, acceleration: ActivityTestSignals.sample(time: t, amplitude: 0.3, frequency: 2))
        {
          times.append(t)
          XCTAssertTrue(extractor.features.allSatisfy(\.isFinite))
          // Dominant frequency of |a| (feature 10): the 2 Hz bounce, within one 0.2 Hz bin.
          XCTAssertEqual(extractor.features[10], 2, accuracy: 0.21)
        }
      }
      // 15 or 16 windows in 20 s, depending on where the 20 Hz grid falls between samples.
      XCTAssertTrue((15...16).contains(times.count), "rate \(rate): \(times)")
      XCTAssertEqual(times.first ?? 0, 4.95, accuracy: 1 / rate + 0.06)
    }
  }
}
