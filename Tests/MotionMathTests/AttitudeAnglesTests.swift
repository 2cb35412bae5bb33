// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

/// Core Motion's Euler convention: earthFromSensor = Rz(yaw)·Rx(pitch)·Ry(roll).
final class AttitudeAnglesTests: XCTestCase {
  func testUprightPortraitHasPitchNinetyDegrees() {
    // The device's +y (top) points up: a quarter turn about x.
    let upright = Quaternion(angle: .pi / 2, axis: SIMD3(1, 0, 0))
    let angles = AttitudeAngles(upright)
    XCTAssertEqual(angles.pitch, .pi / 2, accuracy: 1e-9)
    // Gravity (down) seen from the device: the −y axis, Core Motion's (0, −1, 0) portrait reading.
    let down = upright.conjugate.act(on: SIMD3(0, 0, -1))
    XCTAssertEqual(down.y, -1, accuracy: 1e-12)
  }

  func testRollAndYawSigns() {
    let rolled = AttitudeAngles(Quaternion(angle: 0.3, axis: SIMD3(0, 1, 0)))
    XCTAssertEqual(rolled.roll, 0.3, accuracy: 1e-12)
    XCTAssertEqual(rolled.pitch, 0, accuracy: 1e-12)
    let turned = AttitudeAngles(Quaternion.aboutZ(0.7))
    XCTAssertEqual(turned.yaw, 0.7, accuracy: 1e-12)
  }

  func testRoundTripOutsideGimbalLock() {
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    for trial in 0..<500 {
      let q = rng.nextUnitQuaternion()
      let angles = AttitudeAngles(q)
      guard Swift.abs(angles.pitch) < 89 * Units.radiansPerDegree else { continue }
      XCTAssertLessThan(angles.quaternion.angle(to: q), 1e-9, "seed \(seed), trial \(trial)")
      let again = AttitudeAngles(angles.quaternion)
      XCTAssertEqual(again.roll, angles.roll, accuracy: 1e-9)
      XCTAssertEqual(again.yaw, angles.yaw, accuracy: 1e-9)
    }
  }

  func testEarthFrameRotations() {
    // East in ENU is −west in NWU.
    let east = EarthFrame.eastNorthUp.rotation(to: .northWestUp).act(on: SIMD3(1, 0, 0))
    XCTAssertLessThan((east - SIMD3(0, -1, 0)).length, 1e-12)
    // Down in NED is −up in NWU; east in NED is −west.
    let nedToNWU = EarthFrame.northEastDown.rotation(to: .northWestUp)
    XCTAssertLessThan((nedToNWU.act(on: SIMD3(0, 0, 1)) - SIMD3(0, 0, -1)).length, 1e-12)
    XCTAssertLessThan((nedToNWU.act(on: SIMD3(0, 1, 0)) - SIMD3(0, -1, 0)).length, 1e-12)
  }

  func testSpecificForceConversion() {
    // Lying face up at rest: specific force +9.81 on z reads (0, 0, −1) g in Core Motion.
    let cm = Units.coreMotionAcceleration(fromSpecificForce: SIMD3(0, 0, Units.standardGravity))
    XCTAssertEqual(cm, SIMD3(0, 0, -1))
  }
}
