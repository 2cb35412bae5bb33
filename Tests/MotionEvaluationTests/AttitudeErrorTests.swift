// SPDX-License-Identifier: Apache-2.0

import MotionEvaluation
import MotionMath
import XCTest
import _MotionTestSupport

final class AttitudeErrorTests: XCTestCase {
  private let degree = Units.radiansPerDegree

  /// Hand-built pairs with known heading and inclination errors (tolerance: rounding only).
  func testKnownErrors() {
    var rng = SplitMix64(seed: testSeed())
    for _ in 0..<20 {
      let reference = rng.nextUnitQuaternion()
      // Pure heading error: rotate the estimate about the earth vertical.
      let h = AttitudeError(estimate: Quaternion.aboutZ(10 * degree) * reference, reference: reference)
      XCTAssertEqual(h.total / degree, 10, accuracy: 1e-9)
      XCTAssertEqual(h.heading / degree, 10, accuracy: 1e-9)
      XCTAssertEqual(h.inclination / degree, 0, accuracy: 1e-6)
      // Pure inclination error: about an earth-horizontal axis.
      let i = AttitudeError(
        estimate: Quaternion(angle: 5 * degree, axis: SIMD3(1, 1, 0)) * reference, reference: reference)
      XCTAssertEqual(i.total / degree, 5, accuracy: 1e-9)
      XCTAssertEqual(i.heading / degree, 0, accuracy: 1e-6)
      XCTAssertEqual(i.inclination / degree, 5, accuracy: 1e-9)
      // q and −q are the same rotation.
      let n = AttitudeError(estimate: -reference, reference: reference)
      XCTAssertEqual(n.total, 0, accuracy: 1e-6)
    }
  }

  /// Heading after inclination: d = Rz(ψ)·Rx(θ) splits into heading ψ and inclination θ.
  func testCombinedSplit() {
    let d = Quaternion.aboutZ(20 * degree) * Quaternion(angle: 3 * degree, axis: SIMD3(1, 0, 0))
    let e = AttitudeError(earthError: d)
    XCTAssertEqual(e.heading / degree, 20, accuracy: 1e-9)
    XCTAssertEqual(e.inclination / degree, 3, accuracy: 1e-9)
  }

  /// The metrics do not depend on whether both attitudes are in ENU or NWU.
  func testInvariantToEarthFrameAboutVertical() {
    var rng = SplitMix64(seed: testSeed())
    let enuToNwu = EarthFrame.eastNorthUp.rotation(to: .northWestUp)
    for _ in 0..<20 {
      let reference = rng.nextUnitQuaternion()
      let estimate = rng.nextUnitQuaternion()
      let a = AttitudeError(estimate: estimate, reference: reference)
      let b = AttitudeError(estimate: enuToNwu * estimate, reference: enuToNwu * reference)
      XCTAssertEqual(a.total, b.total, accuracy: 1e-12)
      XCTAssertEqual(a.heading, b.heading, accuracy: 1e-12)
      XCTAssertEqual(a.inclination, b.inclination, accuracy: 1e-12)
    }
  }

  /// RMS over samples, movement mask and missing references, and the 6D offset removal.
  func testSummaryAndHeadingOffsetRemoval() throws {
    var rng = SplitMix64(seed: testSeed())
    let references: [Quaternion?] = (0..<100).map { k in k % 10 == 0 ? nil : rng.nextUnitQuaternion() }
    // Constant 30° heading offset plus alternating ±2° inclination error.
    let estimates = references.enumerated().map { k, r -> Quaternion in
      let tilt = Quaternion(angle: (k % 2 == 0 ? 2 : -2) * degree, axis: SIMD3(0, 1, 0))
      return Quaternion.aboutZ(30 * degree) * tilt * (r ?? .identity)
    }
    var mask = [Bool](repeating: true, count: 100)
    mask[1] = false
    let raw = try XCTUnwrap(
      AttitudeErrorSummary.rms(estimates: estimates, references: references, isEvaluated: mask, removeHeadingOffset: false))
    XCTAssertEqual(raw.inclination, 2, accuracy: 1e-6)
    XCTAssertEqual(raw.heading, 30, accuracy: 0.1)
    let aligned = try XCTUnwrap(
      AttitudeErrorSummary.rms(estimates: estimates, references: references, isEvaluated: mask, removeHeadingOffset: true))
    XCTAssertEqual(aligned.heading, 0, accuracy: 0.05)
    XCTAssertEqual(aligned.total, 2, accuracy: 0.01)
    XCTAssertNil(AttitudeErrorSummary.rms(
      estimates: estimates, references: references, isEvaluated: [Bool](repeating: false, count: 100),
      removeHeadingOffset: false))
  }

  /// The JSON shape `motionctl evaluate --json` prints.
  func testResultJSONShape() throws {
    let result = EvaluationResult(
      mode: .realtime9d,
      trials: [.init(name: "a", summary: .init(total: 2, heading: 1, inclination: 0.5)),
               .init(name: "b", summary: .init(total: 4, heading: 3, inclination: 1.5))])
    XCTAssertEqual(result.mean.total, 3)
    let data = try JSONEncoder().encode(result)
    let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    XCTAssertEqual(object["mode"] as? String, "realtime9d")
    XCTAssertEqual((object["trials"] as? [[String: Any]])?.first?["name"] as? String, "a")
    XCTAssertEqual((object["mean"] as? [String: Double])?["inclination"], 1)
  }
}
