// SPDX-License-Identifier: Apache-2.0

import MotionEvaluation
import XCTest

/// Pairing Apple's gravity instants with an estimator's updates by time.
final class GravityAgreementMatcherTests: XCTestCase {
  /// A direction `degrees` from straight down, tilted about x.
  private func down(tiltedBy degrees: Double) -> SIMD3<Double> {
    let angle = degrees * .pi / 180
    return SIMD3(0, -sin(angle), -cos(angle)) * 9.8  // any length: only the direction counts
  }

  func testEachInstantIsComparedWithTheNearestUpdateWithinTheTolerance() throws {
    var matcher = GravityAgreementMatcher(tolerance: 0.025)
    // Apple's instants run ahead of the updates, as in a replay.
    matcher.appendApple(time: 1.004, gravity: down(tiltedBy: 0))  // nearer 1.00 (1°) than 1.01
    matcher.appendApple(time: 1.008, gravity: down(tiltedBy: 0))  // nearer 1.01 (2°)
    matcher.appendApple(time: 1.5, gravity: down(tiltedBy: 0))  // 0.49 s from any update
    matcher.appendEstimate(time: 1.00, gravity: down(tiltedBy: 1))
    matcher.appendEstimate(time: 1.01, gravity: down(tiltedBy: 2))
    matcher.appendEstimate(time: 1.99, gravity: down(tiltedBy: 3))
    // After the last update: within the tolerance of it, and beyond it.
    matcher.appendApple(time: 2.0, gravity: down(tiltedBy: 0))
    matcher.appendApple(time: 2.1, gravity: down(tiltedBy: 0))
    let trial = try XCTUnwrap(matcher.finish(name: "t"))
    XCTAssertEqual(trial.count, 3)
    XCTAssertEqual(matcher.unmatchedCount, 2)
    XCTAssertEqual(trial.unmatchedInstants, 2)
    XCTAssertEqual(trial.median, 2, accuracy: 1e-9)
    // numpy's linear interpolation over [1, 2, 3]: 2.9 at 0.95.
    XCTAssertEqual(trial.p95, 2.9, accuracy: 1e-9)
    XCTAssertNil(trial.referenceMedian)
  }

  func testNothingComparableGivesNoTrialAndBadValuesAreLeftOut() {
    var matcher = GravityAgreementMatcher()
    matcher.appendApple(time: .nan, gravity: down(tiltedBy: 0))
    matcher.appendApple(time: 1, gravity: .zero)
    matcher.appendEstimate(time: 1, gravity: SIMD3(.infinity, 0, 0))
    // Finite, but too long to compare: its squared length overflows.
    matcher.appendApple(time: 2, gravity: SIMD3(1e200, 0, 0))
    matcher.appendEstimate(time: 2, gravity: down(tiltedBy: 0))
    XCTAssertNil(matcher.finish(name: "empty"))
    XCTAssertEqual(matcher.unmatchedCount, 3)
  }

  func testOppositeDirectionsAreHalfATurnApart() throws {
    var matcher = GravityAgreementMatcher()
    matcher.appendApple(time: 0, gravity: down(tiltedBy: 0))
    matcher.appendEstimate(time: 0, gravity: -down(tiltedBy: 0))
    XCTAssertEqual(try XCTUnwrap(matcher.finish(name: "flip")).median, 180, accuracy: 1e-6)
  }
}
