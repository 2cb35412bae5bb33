// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

/// Core Motion's Euler convention: earthFromSensor = Rz(yaw)·Rx(pitch)·Ry(roll).
final class AttitudeAnglesTests: XCTestCase {
  /// Direct conversions of unit values: a handful of roundings, far above double-precision noise
  /// (~1e-16) and far below any physical effect (as in QuaternionTests).
  let conversionTolerance = 1e-12
  /// Near gimbal lock the angles are ill-conditioned: roll and yaw rounding errors grow like
  /// 1/cos(pitch) (about 57 at the 89° the round trip allows), and pitch at exactly 90° comes from
  /// a value at the edge of asin's domain; 1e-9 rad still means a wrong formula, not rounding.
  let nearGimbalLockTolerance = 1e-9
  func testUprightPortraitHasPitchNinetyDegrees() {
    // The device's +y (top) points up: a quarter turn about x.
    let upright = Quaternion(angle: .pi / 2, axis: SIMD3(1, 0, 0))
    let angles = AttitudeAngles(upright)
    XCTAssertEqual(angles.pitch, .pi / 2, accuracy: nearGimbalLockTolerance)
    // Gravity (down) seen from the device: the −y axis, Core Motion's (0, −1, 0) portrait reading.
    let down = upright.conjugate.act(on: SIMD3(0, 0, -1))
    XCTAssertEqual(down.y, -1, accuracy: conversionTolerance)
  }

  func testRollAndYawSigns() {
    let rolled = AttitudeAngles(Quaternion(angle: 0.3, axis: SIMD3(0, 1, 0)))
    XCTAssertEqual(rolled.roll, 0.3, accuracy: conversionTolerance)
    XCTAssertEqual(rolled.pitch, 0, accuracy: conversionTolerance)
    let turned = AttitudeAngles(Quaternion.aboutZ(0.7))
    XCTAssertEqual(turned.yaw, 0.7, accuracy: conversionTolerance)
  }

  func testRoundTripOutsideGimbalLock() {
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    for trial in 0..<500 {
      let q = rng.nextUnitQuaternion()
      let angles = AttitudeAngles(q)
      guard Swift.abs(angles.pitch) < 89 * Units.radiansPerDegree else { continue }
      XCTAssertLessThan(
        angles.quaternion.angle(to: q), nearGimbalLockTolerance, "seed \(seed), trial \(trial)")
      let again = AttitudeAngles(angles.quaternion)
      XCTAssertEqual(again.roll, angles.roll, accuracy: nearGimbalLockTolerance)
      XCTAssertEqual(again.yaw, angles.yaw, accuracy: nearGimbalLockTolerance)
    }
  }

  func testEarthFrameRotations() {
    // East in ENU is −west in NWU.
    let east = EarthFrame.eastNorthUp.rotation(to: .northWestUp).act(on: SIMD3(1, 0, 0))
    XCTAssertLessThan((east - SIMD3(0, -1, 0)).length, conversionTolerance)
    // Down in NED is −up in NWU; east in NED is −west.
    let nedToNWU = EarthFrame.northEastDown.rotation(to: .northWestUp)
    XCTAssertLessThan(
      (nedToNWU.act(on: SIMD3(0, 0, 1)) - SIMD3(0, 0, -1)).length, conversionTolerance)
    XCTAssertLessThan(
      (nedToNWU.act(on: SIMD3(0, 1, 0)) - SIMD3(0, -1, 0)).length, conversionTolerance)
  }

  func testSpecificForceConversion() {
    // Lying face up at rest: specific force +9.81 on z reads (0, 0, −1) g in Core Motion.
    let cm = Units.coreMotionAcceleration(fromSpecificForce: SIMD3(0, 0, Units.standardGravity))
    XCTAssertEqual(cm, SIMD3(0, 0, -1))
  }
}
