// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import XCTest
import _MotionTestSupport

@testable import OpenCoreMotion

/// CMAttitude: Euler angles, quaternion and matrix describe one rotation; relative attitudes.
final class CMAttitudeTests: XCTestCase {
  func testEulerQuaternionAndMatrixAgree() {
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    for trial in 0..<300 {
      let q = rng.nextUnitQuaternion()
      let attitude = CMAttitude(referenceFromDevice: q)
      let context = "seed \(seed), trial \(trial)"

      // Euler → quaternion: Rz(yaw)·Rx(pitch)·Ry(roll) reproduces the rotation.
      let fromAngles = AttitudeAngles(
        roll: attitude.roll, pitch: attitude.pitch, yaw: attitude.yaw
      ).quaternion
      XCTAssertLessThan(fromAngles.angle(to: q), 1e-6, context)
      XCTAssertLessThanOrEqual(abs(attitude.pitch), .pi / 2 + 1e-12, context)

      // Quaternion fields, scalar last.
      let cq = attitude.quaternion
      XCTAssertLessThan(Quaternion(w: cq.w, x: cq.x, y: cq.y, z: cq.z).angle(to: q), 1e-12, context)

      // Matrix = transpose of the quaternion's matrix: column j is reference axis j in device
      // coordinates, row i is device axis i in reference coordinates.
      let m = attitude.rotationMatrix
      let r = RotationMatrix(q)
      XCTAssertEqual(m.m12, r.row2.x, accuracy: 1e-12, context)
      XCTAssertEqual(m.m31, r.row1.z, accuracy: 1e-12, context)
      let referenceX = q.conjugate.act(on: SIMD3(1, 0, 0))
      XCTAssertVector(SIMD3(m.m11, m.m21, m.m31), referenceX, accuracy: 1e-12, context)
      let deviceY = q.act(on: SIMD3(0, 1, 0))
      XCTAssertVector(SIMD3(m.m21, m.m22, m.m23), deviceY, accuracy: 1e-12, context)
      // Gravity (down in the reference frame) seen from the device is (−m13, −m23, −m33).
      let gravity = q.conjugate.act(on: SIMD3(0, 0, -1))
      XCTAssertVector(SIMD3(-m.m13, -m.m23, -m.m33), gravity, accuracy: 1e-12, context)
    }
  }

  func testZeroAnglesWhenAlignedWithTheReference() {
    let attitude = CMAttitude()
    XCTAssertEqual(attitude.roll, 0)
    XCTAssertEqual(attitude.pitch, 0)
    XCTAssertEqual(attitude.yaw, 0)
    XCTAssertEqual(attitude.quaternion.w, 1)
    XCTAssertEqual(attitude.rotationMatrix.m11, 1)
    XCTAssertEqual(attitude.rotationMatrix.m22, 1)
    XCTAssertEqual(attitude.rotationMatrix.m33, 1)
  }

  func testMultiplyByInverseGivesTheChangeRelativeToTheReference() {
    // Flat device turned by 0.3 rad, then by a further 0.5 rad.
    let reference = CMAttitude(referenceFromDevice: .aboutZ(0.3))
    let current = CMAttitude(referenceFromDevice: .aboutZ(0.8))
    current.multiply(byInverseOf: reference)
    XCTAssertEqual(current.yaw, 0.5, accuracy: 1e-12)
    XCTAssertEqual(current.roll, 0, accuracy: 1e-12)

    // In general: reference ⊗ result = original.
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    for trial in 0..<100 {
      let a = rng.nextUnitQuaternion()
      let b = rng.nextUnitQuaternion()
      let attitude = CMAttitude(referenceFromDevice: a)
      attitude.multiply(byInverseOf: CMAttitude(referenceFromDevice: b))
      XCTAssertLessThan(
        (b * attitude.referenceFromDevice).angle(to: a), 1e-12, "seed \(seed), \(trial)")
    }

    // An attitude relative to itself is the identity.
    let same = CMAttitude(referenceFromDevice: .aboutZ(1))
    same.multiply(byInverseOf: same.copy() as! CMAttitude)
    XCTAssertEqual(same.quaternion.w, 1, accuracy: 1e-12)
  }

  func testCopyIsIndependent() {
    let original = CMAttitude(referenceFromDevice: .aboutZ(0.4))
    let copy = original.copy() as! CMAttitude
    copy.multiply(byInverseOf: original)
    XCTAssertEqual(original.yaw, 0.4, accuracy: 1e-12)
    XCTAssertEqual(copy.yaw, 0, accuracy: 1e-12)

    // CMDeviceMotion hands out copies, so mutating one never changes the sample.
    let motion = CMDeviceMotion(
      timestamp: 1, attitude: original, rotationRate: CMRotationRate(),
      gravity: CMAcceleration(x: 0, y: 0, z: -1), userAcceleration: CMAcceleration(),
      magneticField: CMCalibratedMagneticField(), heading: -1)
    motion.attitude.multiply(byInverseOf: original)
    XCTAssertEqual(motion.attitude.yaw, 0.4, accuracy: 1e-12)
  }
}
