// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import XCTest

@testable import OpenCoreMotion

/// Raw values and shapes that must match Apple's.
final class CMConstantsTests: XCTestCase {
  func testErrorCodes() {
    let codes: [(CMError, UInt32)] = [
      (CMErrorNULL, 100), (CMErrorDeviceRequiresMovement, 101), (CMErrorTrueNorthNotAvailable, 102),
      (CMErrorUnknown, 103), (CMErrorMotionActivityNotAvailable, 104),
      (CMErrorMotionActivityNotAuthorized, 105), (CMErrorMotionActivityNotEntitled, 106),
      (CMErrorInvalidParameter, 107), (CMErrorInvalidAction, 108), (CMErrorNotAvailable, 109),
      (CMErrorNotEntitled, 110), (CMErrorNotAuthorized, 111), (CMErrorNilData, 112),
      (CMErrorSize, 113),
    ]
    for (error, raw) in codes {
      XCTAssertEqual(error.rawValue, raw)
      XCTAssertEqual(CMError(raw), error)
      XCTAssertEqual(CMError(rawValue: raw), error)
    }
    XCTAssertEqual(CMErrorDomain, "CMErrorDomain")
    let error = NSError(CMErrorNotAvailable, description: "x")
    XCTAssertEqual(error.domain, CMErrorDomain)
    XCTAssertEqual(error.code, 109)
  }

  func testReferenceFrameRawValues() {
    XCTAssertEqual(CMAttitudeReferenceFrame.xArbitraryZVertical.rawValue, 1)
    XCTAssertEqual(CMAttitudeReferenceFrame.xArbitraryCorrectedZVertical.rawValue, 2)
    XCTAssertEqual(CMAttitudeReferenceFrame.xMagneticNorthZVertical.rawValue, 4)
    XCTAssertEqual(CMAttitudeReferenceFrame.xTrueNorthZVertical.rawValue, 8)
    let frames: CMAttitudeReferenceFrame = [.xArbitraryZVertical, .xMagneticNorthZVertical]
    XCTAssertEqual(frames.rawValue, 5)
    XCTAssertTrue(frames.contains(.xMagneticNorthZVertical))
    XCTAssertEqual(frames.rawValue & CMAttitudeReferenceFrame.xTrueNorthZVertical.rawValue, 0)
  }

  func testEnumRawValues() {
    XCTAssertEqual(CMMagneticFieldCalibrationAccuracy.uncalibrated.rawValue, -1)
    XCTAssertEqual(CMMagneticFieldCalibrationAccuracy.low.rawValue, 0)
    XCTAssertEqual(CMMagneticFieldCalibrationAccuracy.medium.rawValue, 1)
    XCTAssertEqual(CMMagneticFieldCalibrationAccuracy.high.rawValue, 2)
    XCTAssertTrue(type(of: CMMagneticFieldCalibrationAccuracy.high.rawValue) == Int32.self)
    XCTAssertEqual(CMDeviceMotion.SensorLocation.default.rawValue, 0)
    XCTAssertEqual(CMDeviceMotion.SensorLocation.headphoneLeft.rawValue, 1)
    XCTAssertEqual(CMDeviceMotion.SensorLocation.headphoneRight.rawValue, 2)
  }

  func testZeroInitializersAndHandlerShapes() {
    XCTAssertEqual(CMQuaternion().w, 0)
    XCTAssertEqual(CMRotationMatrix().m11, 0)
    XCTAssertEqual(CMCalibratedMagneticField().accuracy, .uncalibrated)
    XCTAssertEqual(CMAccelerometerData().timestamp, 0)
    XCTAssertEqual(CMDeviceMotion().heading, -1)
    // The handler typealiases take an optional sample and an optional error.
    let handler: CMDeviceMotionHandler = { motion, error in
      XCTAssertNil(motion)
      XCTAssertNotNil(error)
    }
    handler(nil, NSError(CMErrorUnknown))
    let _: CMAccelerometerHandler = { _, _ in }
    let _: CMGyroHandler = { _, _ in }
    let _: CMMagnetometerHandler = { _, _ in }
  }

  func testSecureCodingRoundTrips() throws {
    XCTAssertTrue(CMLogItem.supportsSecureCoding)
    XCTAssertTrue(CMAttitude.supportsSecureCoding)
    let accelerometer = CMAccelerometerData(
      acceleration: CMAcceleration(x: 0.1, y: -0.2, z: -0.98), timestamp: 12.5)
    let decodedAccelerometer = try roundTrip(accelerometer)
    XCTAssertEqual(decodedAccelerometer.timestamp, 12.5)
    XCTAssertEqual(decodedAccelerometer.acceleration.y, -0.2)

    let gyro = try roundTrip(
      CMGyroData(rotationRate: CMRotationRate(x: 1, y: 2, z: 3), timestamp: 1))
    XCTAssertEqual(gyro.rotationRate.z, 3)
    let magnetometer = try roundTrip(
      CMMagnetometerData(magneticField: CMMagneticField(x: 20, y: 0, z: -40), timestamp: 2))
    XCTAssertEqual(magnetometer.magneticField.z, -40)

    let attitude = CMAttitude(referenceFromDevice: AttitudeAnglesFixture.quaternion)
    let decodedAttitude = try roundTrip(attitude)
    XCTAssertEqual(decodedAttitude.yaw, attitude.yaw, accuracy: 1e-15)
    XCTAssertEqual(decodedAttitude.roll, attitude.roll, accuracy: 1e-15)

    let motion = CMDeviceMotion(
      timestamp: 3, attitude: attitude, rotationRate: CMRotationRate(x: 0.1, y: 0, z: 0),
      gravity: CMAcceleration(x: 0, y: -1, z: 0),
      userAcceleration: CMAcceleration(x: 0.5, y: 0, z: 0),
      magneticField: CMCalibratedMagneticField(
        field: CMMagneticField(x: 1, y: 2, z: 3), accuracy: .medium),
      heading: 123)
    let decodedMotion = try roundTrip(motion)
    XCTAssertEqual(decodedMotion.timestamp, 3)
    XCTAssertEqual(decodedMotion.heading, 123)
    XCTAssertEqual(decodedMotion.gravity.y, -1)
    XCTAssertEqual(decodedMotion.userAcceleration.x, 0.5)
    XCTAssertEqual(decodedMotion.magneticField.accuracy, .medium)
    XCTAssertEqual(decodedMotion.magneticField.field.y, 2)
    XCTAssertEqual(decodedMotion.attitude.pitch, attitude.pitch, accuracy: 1e-15)
  }

  private func roundTrip<T: NSObject & NSSecureCoding>(_ object: T) throws -> T {
    let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
    return try XCTUnwrap(NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data))
  }
}

private enum AttitudeAnglesFixture {
  static let quaternion = Quaternion(w: 0.9, x: 0.1, y: -0.3, z: 0.2).normalized
}
