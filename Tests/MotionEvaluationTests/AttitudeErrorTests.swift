// SPDX-License-Identifier: Apache-2.0

import MotionEvaluation
import MotionMath
import XCTest
import _MotionTestSupport

final class AttitudeErrorTests: XCTestCase {
  private let degree = Units.radiansPerDegree
  /// Errors that are exact up to a few roundings (degrees, or radians where compared in radians).
  private let roundingTolerance = 1e-9
  /// A component that should be 0: an angle near zero recovered from a rotation is ill-conditioned
  /// (a rounding of 1e-16 in a cosine reads as √(2·1e-16) ≈ 1.5e-8 rad, about 1e-6°).
  private let nearZeroAngleTolerance = 1e-6
  /// The same computation in two earth frames: only the frame change's roundings differ (rad).
  private let frameChangeTolerance = 1e-12
  /// The heading/inclination split couples a ±2° tilt into heading through second-order terms (a
  /// few hundredths of a degree), so summaries of such data are only that close to the round
  /// figures (degrees).
  private let tiltCouplingTolerance = 0.1
  private let alignedHeadingTolerance = 0.05
  private let alignedTotalTolerance = 0.01

  /// Hand-built pairs with known heading and inclination errors (tolerance: rounding only).
  func testKnownErrors() {
    var rng = SplitMix64(seed: testSeed())
    for _ in 0..<20 {
      let reference = rng.nextUnitQuaternion()
      // Pure heading error: rotate the estimate about the earth vertical.
      let h = AttitudeError(
        estimate: Quaternion.aboutZ(10 * degree) * reference, reference: reference)
      XCTAssertEqual(h.total / degree, 10, accuracy: roundingTolerance)
      XCTAssertEqual(h.heading / degree, 10, accuracy: roundingTolerance)
      XCTAssertEqual(h.inclination / degree, 0, accuracy: nearZeroAngleTolerance)
      // Pure inclination error: about an earth-horizontal axis.
      let i = AttitudeError(
        estimate: Quaternion(angle: 5 * degree, axis: SIMD3(1, 1, 0)) * reference,
        reference: reference)
      XCTAssertEqual(i.total / degree, 5, accuracy: roundingTolerance)
      XCTAssertEqual(i.heading / degree, 0, accuracy: nearZeroAngleTolerance)
      XCTAssertEqual(i.inclination / degree, 5, accuracy: roundingTolerance)
      // q and −q are the same rotation.
      let n = AttitudeError(estimate: -reference, reference: reference)
      XCTAssertEqual(n.total, 0, accuracy: nearZeroAngleTolerance)
    }
  }

  /// Heading after inclination: d = Rz(ψ)·Rx(θ) splits into heading ψ and inclination θ.
  func testCombinedSplit() {
    let d = Quaternion.aboutZ(20 * degree) * Quaternion(angle: 3 * degree, axis: SIMD3(1, 0, 0))
    let e = AttitudeError(earthError: d)
    XCTAssertEqual(e.heading / degree, 20, accuracy: roundingTolerance)
    XCTAssertEqual(e.inclination / degree, 3, accuracy: roundingTolerance)
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
      XCTAssertEqual(a.total, b.total, accuracy: frameChangeTolerance)
      XCTAssertEqual(a.heading, b.heading, accuracy: frameChangeTolerance)
      XCTAssertEqual(a.inclination, b.inclination, accuracy: frameChangeTolerance)
    }
  }

  /// RMS over samples, movement mask and missing references, and the 6D offset removal.
  func testSummaryAndHeadingOffsetRemoval() throws {
    var rng = SplitMix64(seed: testSeed())
    let references: [Quaternion?] = (0..<100).map { k in
      k % 10 == 0 ? nil : rng.nextUnitQuaternion()
    }
    // Constant 30° heading offset plus alternating ±2° inclination error.
    let estimates = references.enumerated().map { k, r -> Quaternion in
      let tilt = Quaternion(angle: (k % 2 == 0 ? 2 : -2) * degree, axis: SIMD3(0, 1, 0))
      return Quaternion.aboutZ(30 * degree) * tilt * (r ?? .identity)
    }
    var mask = [Bool](repeating: true, count: 100)
    mask[1] = false
    let raw = try XCTUnwrap(
      AttitudeErrorSummary.rms(
        estimates: estimates, references: references, isEvaluated: mask, removeHeadingOffset: false)
    )
    // The ±2° tilt is all inclination, recovered through the same near-1 cosines as a zero angle.
    let tiltInclinationTolerance = nearZeroAngleTolerance
    XCTAssertEqual(raw.inclination, 2, accuracy: tiltInclinationTolerance)
    XCTAssertEqual(raw.heading, 30, accuracy: tiltCouplingTolerance)
    let aligned = try XCTUnwrap(
      AttitudeErrorSummary.rms(
        estimates: estimates, references: references, isEvaluated: mask, removeHeadingOffset: true))
    XCTAssertEqual(aligned.heading, 0, accuracy: alignedHeadingTolerance)
    XCTAssertEqual(aligned.total, 2, accuracy: alignedTotalTolerance)
    XCTAssertNil(
      AttitudeErrorSummary.rms(
        estimates: estimates, references: references,
        isEvaluated: [Bool](repeating: false, count: 100),
        removeHeadingOffset: false))
  }

  /// The JSON shape `motionctl evaluate --json` prints.
  func testResultJSONShape() throws {
    let result = EvaluationResult(
      mode: .realtime9d,
      trials: [
        .init(name: "a", summary: .init(total: 2, heading: 1, inclination: 0.5)),
        .init(name: "b", summary: .init(total: 4, heading: 3, inclination: 1.5)),
      ])
    XCTAssertEqual(result.mean.total, 3)
    let data = try JSONEncoder().encode(result)
    let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    XCTAssertEqual(object["mode"] as? String, "realtime9d")
    XCTAssertEqual((object["trials"] as? [[String: Any]])?.first?["name"] as? String, "a")
    XCTAssertEqual((object["mean"] as? [String: Double])?["inclination"], 1)
  }
}
