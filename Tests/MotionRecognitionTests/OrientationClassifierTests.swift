// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionRecognition

final class OrientationClassifierTests: XCTestCase {
  private let degree = Units.radiansPerDegree

  /// Feeds a constant gravity for `duration` seconds at 100 Hz from `start`; returns the changes.
  @discardableResult
  private func hold(
    _ classifier: inout OrientationClassifier, _ gravity: SIMD3<Double>, from start: Double,
    duration: Double = 0.3
  ) -> [OrientationChange] {
    var changes: [OrientationChange] = []
    for i in 0..<Int(duration * 100) {
      let input = MotionInput(timestamp: start + Double(i) / 100, acceleration: gravity)
      if let change = classifier.update(input) { changes.append(change) }
    }
    return changes
  }

  func testRawValuesAndHelpersMirrorUIKit() {
    XCTAssertEqual(DeviceOrientation.allCases.map(\.rawValue), Array(0...6))
    XCTAssertEqual(
      DeviceOrientation.allCases.map(\.description),
      [
        "unknown", "portrait", "portraitUpsideDown", "landscapeLeft", "landscapeRight", "faceUp",
        "faceDown",
      ])
    XCTAssertEqual(
      DeviceOrientation.allCases.filter(\.isPortrait), [.portrait, .portraitUpsideDown])
    XCTAssertEqual(
      DeviceOrientation.allCases.filter(\.isLandscape), [.landscapeLeft, .landscapeRight])
    XCTAssertEqual(DeviceOrientation.allCases.filter(\.isFlat), [.faceUp, .faceDown])
    XCTAssertEqual(
      DeviceOrientation.allCases.filter(\.isValidInterfaceOrientation),
      [.portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight])
  }

  func testTableOfGravityReadings() {
    // The Core Motion gravity readings (g, Apple's sign) of the six orientations.
    let table: [(SIMD3<Double>, DeviceOrientation)] = [
      (SIMD3(0, 0, -1), .faceUp), (SIMD3(0, 0, 1), .faceDown),
      (SIMD3(0, -1, 0), .portrait), (SIMD3(0, 1, 0), .portraitUpsideDown),
      (SIMD3(-1, 0, 0), .landscapeLeft), (SIMD3(1, 0, 0), .landscapeRight),
      // Typical hand-held readings, ~25° off the axis.
      (SIMD3(0.1, -0.9, -0.42), .portrait), (SIMD3(0.88, 0.1, -0.45), .landscapeRight),
    ]
    for (gravity, expected) in table {
      XCTAssertEqual(DeviceOrientation.nearest(toGravity: gravity), expected, "\(gravity)")
      var classifier = OrientationClassifier()
      let changes = hold(&classifier, gravity, from: 0)
      XCTAssertEqual(classifier.orientation, expected, "\(gravity)")
      XCTAssertEqual(changes.map(\.orientation), [expected])
      // Committed after the settling time, not before.
      XCTAssertEqual(changes.first?.timestamp ?? -1, 0.01, accuracy: 0.011)
    }
  }

  func testBoundaryMarginInThePlaneOfTwoAxes() {
    let thirtyFive = 35 * degree
    let gravity = SIMD3(Double.sin(thirtyFive), -Double.cos(thirtyFive), 0)
    XCTAssertEqual(
      DeviceOrientation.portrait.boundaryMargin(gravity: gravity), 10 * degree, accuracy: 1e-9)
    XCTAssertEqual(
      DeviceOrientation.landscapeRight.boundaryMargin(gravity: gravity), -10 * degree,
      accuracy: 1e-9)
    XCTAssertLessThan(
      DeviceOrientation.faceDown.boundaryMargin(gravity: SIMD3(0, 0, -1)), -40 * degree)
  }

  func testHysteresisWhenSweepingBetweenPortraitAndLandscape() {
    // Rotate gravity from portrait (θ = 0) to landscapeRight (θ = 90°) and back at 20°/s.
    var classifier = OrientationClassifier()
    var changes: [(angle: Double, change: OrientationChange)] = []
    let rate = 20 * degree
    var t = 0.0
    func feed(_ theta: Double) {
      let g = SIMD3(Double.sin(theta), -Double.cos(theta), 0)
      if let change = classifier.update(MotionInput(timestamp: t, acceleration: g)) {
        changes.append((theta, change))
      }
      t += 0.01
    }
    for i in 0...450 { feed(Double(i) * rate * 0.01) }  // 0° → 90°
    for i in 0...450 { feed(90 * degree - Double(i) * rate * 0.01) }  // 90° → 0°
    XCTAssertEqual(changes.map(\.change.orientation), [.portrait, .landscapeRight, .portrait])
    // The switch away from portrait happens past 50° (plus settling: 0.01 s × 20°/s = 0.2°) and the
    // switch back only below 40° (minus settling).
    XCTAssertEqual(changes[1].angle / degree, 50 + 0.2, accuracy: 0.5)  // 0.2° steps
    XCTAssertEqual(changes[2].angle / degree, 40 - 0.2, accuracy: 0.5)
  }

  func testNoFlickerNearTheBoundary() {
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    var classifier = OrientationClassifier()
    hold(&classifier, SIMD3(0, -1, 0), from: 0)
    XCTAssertEqual(classifier.orientation, .portrait)
    // Hover at 45° between portrait and face up with ±4.5° of jitter for 20 s (the band is ±5°).
    var changes = 0
    for i in 0..<2000 {
      let theta = (45 + 4.5 * (2 * Double.random(in: 0..<1, using: &rng) - 1)) * degree
      let g = SIMD3(0, -Double.cos(theta), -Double.sin(theta))
      if classifier.update(MotionInput(timestamp: 0.3 + Double(i) / 100, acceleration: g)) != nil {
        changes += 1
      }
    }
    XCTAssertEqual(changes, 0, "seed \(seed)")
    XCTAssertEqual(classifier.orientation, .portrait)
  }

  func testAmbiguousStartIsUnknown() {
    for gravity: SIMD3<Double> in [SIMD3(0, -1, -1), SIMD3(1, 1, 1), SIMD3(-1, 0, 1)] {
      var classifier = OrientationClassifier()
      let changes = hold(&classifier, gravity.normalized, from: 0, duration: 1)
      XCTAssertTrue(changes.isEmpty, "\(gravity)")
      XCTAssertEqual(classifier.orientation, .unknown)
    }
  }

  func testLeavingThroughACornerGoesUnknown() {
    var classifier = OrientationClassifier()
    hold(&classifier, SIMD3(0, 0, -1), from: 0)
    // Straight to the corner between three axes: more than 10° outside face-up's region,
    // not 10° inside any other.
    let changes = hold(&classifier, SIMD3(1, 1, -0.35).normalized, from: 0.3)
    XCTAssertEqual(changes.map(\.orientation), [.unknown])
  }

  func testFreeFallIsUnknownAtOnce() {
    var classifier = OrientationClassifier()
    hold(&classifier, SIMD3(0, -1, 0), from: 0)
    let change = classifier.update(
      MotionInput(timestamp: 0.31, acceleration: SIMD3(0, -0.05, 0.02)))
    XCTAssertEqual(change?.orientation, .unknown)
    // Caught again upright: back to portrait after settling.
    let changes = hold(&classifier, SIMD3(0, -1, 0), from: 0.32)
    XCTAssertEqual(changes.map(\.orientation), [.portrait])
  }

  func testShakingKeepsTheClassBrieflyThenIsUnknown() {
    var classifier = OrientationClassifier()
    hold(&classifier, SIMD3(0, 0, -1), from: 0)
    // A 0.2 s jolt pointing sideways at 1.8 g: not gravity, so no change.
    XCTAssertTrue(hold(&classifier, SIMD3(1.7, 0, -0.6), from: 0.3, duration: 0.2).isEmpty)
    XCTAssertEqual(classifier.orientation, .faceUp)
    // Sustained shaking (alternating ±1.5 g sideways) straight after: unknown 0.5 s after the
    // readings left the 1 g band.
    var changes: [OrientationChange] = []
    for i in 0..<100 {
      let side = i % 10 < 5 ? 1.5 : -1.5
      let t = 0.5 + Double(i) / 100
      if let c = classifier.update(MotionInput(timestamp: t, acceleration: SIMD3(side, 0, -1))) {
        changes.append(c)
      }
    }
    XCTAssertEqual(changes.map(\.orientation), [.unknown])
    // Unsteady since the jolt began at 0.3 s, so unknown from 0.3 + 0.5 s.
    XCTAssertEqual(changes.first?.timestamp ?? 0, 0.8, accuracy: 0.011)
    XCTAssertEqual(hold(&classifier, SIMD3(0, 0, -1), from: 1.5).map(\.orientation), [.faceUp])
  }

  func testASingleStraySampleDoesNotFlip() {
    var classifier = OrientationClassifier()
    hold(&classifier, SIMD3(0, 0, -1), from: 0)
    var changes = 0
    for i in 0..<100 {
      let g: SIMD3<Double> = i == 50 ? SIMD3(0, -1, 0) : SIMD3(0, 0, -1)
      if classifier.update(MotionInput(timestamp: 0.3 + Double(i) / 100, acceleration: g)) != nil {
        changes += 1
      }
    }
    XCTAssertEqual(changes, 0)
  }

  func testWiderBandsAreConfigurable() {
    // The 35°/55° band: the sweep from portrait switches only past 55°.
    var classifier = OrientationClassifier(
      parameters: .init(enterMargin: 10 * degree, exitMargin: 10 * degree, settlingTime: 0))
    hold(&classifier, SIMD3(0, -1, 0), from: 0)
    let fiftyThree = 53 * degree
    hold(&classifier, SIMD3(Double.sin(fiftyThree), -Double.cos(fiftyThree), 0), from: 0.3)
    XCTAssertEqual(classifier.orientation, .portrait)
    let fiftySix = 56 * degree
    hold(&classifier, SIMD3(Double.sin(fiftySix), -Double.cos(fiftySix), 0), from: 0.6)
    XCTAssertEqual(classifier.orientation, .landscapeRight)
  }

  func testResetAndParametersAreSeparate() {
    var classifier = OrientationClassifier(parameters: .init(settlingTime: 0))
    hold(&classifier, SIMD3(0, 0, 1), from: 0)
    XCTAssertEqual(classifier.orientation, .faceDown)
    classifier.reset()
    XCTAssertEqual(classifier.orientation, .unknown)
    XCTAssertEqual(classifier.parameters.settlingTime, 0)
  }

  /// A clock that restarts lower (a new timeline) while a change is pending, or while readings are
  /// unsteady, must not freeze the orientation until the new clock passes the old one; the
  /// committed orientation itself survives the jump.
  func testAChangeAfterTheClockRestartsLowerCommits() {
    var classifier = OrientationClassifier()
    hold(&classifier, SIMD3(0, -1, 0), from: 3599)
    XCTAssertEqual(classifier.orientation, .portrait)
    // The old timeline ends on the first landscape reading: a change is pending.
    hold(&classifier, SIMD3(1, 0, 0), from: 3599.3, duration: 0.01)
    XCTAssertEqual(classifier.orientation, .portrait)
    let changes = hold(&classifier, SIMD3(1, 0, 0), from: 0)
    XCTAssertEqual(changes.map(\.previous), [.portrait])
    XCTAssertEqual(changes.map(\.orientation), [.landscapeRight])
    XCTAssertEqual(changes.first?.timestamp ?? -1, 0.01, accuracy: 1e-9)

    // Unsteady readings across a jump still time out on the new clock.
    hold(&classifier, SIMD3(2, 0, 0), from: 3700, duration: 0.2)
    XCTAssertEqual(classifier.orientation, .landscapeRight)
    hold(&classifier, SIMD3(2, 0, 0), from: 0, duration: 0.7)
    XCTAssertEqual(classifier.orientation, .unknown)

    // A new timeline alone does not change the orientation.
    hold(&classifier, SIMD3(0, 0, -1), from: 5000)
    XCTAssertEqual(classifier.orientation, .faceUp)
    XCTAssertTrue(hold(&classifier, SIMD3(0, 0, -1), from: 0).isEmpty)
    XCTAssertEqual(classifier.orientation, .faceUp)
  }
}
