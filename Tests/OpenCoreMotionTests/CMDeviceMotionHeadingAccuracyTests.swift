// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// `CMDeviceMotion.headingAccuracy` (iOS 27): two standard deviations of the fusion's heading
/// uncertainty in the north frames, −1 where the heading is invalid, kept through coding; and
/// `CMMotionManager.authorizationStatus` (iOS 27.2).
final class CMDeviceMotionHeadingAccuracyTests: XCTestCase {
  private func estimate(hasMagneticHeading: Bool, uncertainty: Double?) -> DeviceMotionEstimate {
    DeviceMotionEstimate(
      timestamp: 1, earthFromSensor6D: .identity, earthFromSensor9D: .identity,
      hasMagneticHeading: hasMagneticHeading, gyroscope: .zero, gyroscopeBias: .zero,
      accelerometer: SIMD3(0, 0, 9.81), calibratedMagneticField: SIMD3(20, 0, -40),
      magneticCalibrationAccuracy: .low, needsCalibrationMotion: false,
      headingUncertainty: uncertainty)
  }

  /// Tolerance 1e-12: one multiplication by a constant.
  func testTwoStandardDeviationsInDegreesOnlyInTheNorthFrames() {
    let twoDegrees = 2 * Units.radiansPerDegree
    XCTAssertEqual(
      ReferenceFrameAligner.headingAccuracy(
        of: estimate(hasMagneticHeading: true, uncertainty: twoDegrees), isNorthReferenced: true),
      4, accuracy: 1e-12)
    XCTAssertEqual(
      ReferenceFrameAligner.headingAccuracy(
        of: estimate(hasMagneticHeading: true, uncertainty: twoDegrees), isNorthReferenced: false),
      -1)
    XCTAssertEqual(
      ReferenceFrameAligner.headingAccuracy(
        of: estimate(hasMagneticHeading: false, uncertainty: twoDegrees), isNorthReferenced: true),
      -1)
    XCTAssertEqual(
      ReferenceFrameAligner.headingAccuracy(
        of: estimate(hasMagneticHeading: true, uncertainty: nil), isNorthReferenced: true), -1)
    XCTAssertEqual(
      ReferenceFrameAligner.headingAccuracy(
        of: estimate(hasMagneticHeading: true, uncertainty: 3), isNorthReferenced: true), 180)
    XCTAssertEqual(
      ReferenceFrameAligner.headingAccuracy(
        of: estimate(hasMagneticHeading: true, uncertainty: .nan), isNorthReferenced: true), -1)
  }

  /// Through a manager on a still, clean field: positive and at most a few degrees after a few
  /// seconds in the magnetic-north frame (the raw field's 3° floor doubled, plus what the start
  /// leaves), −1 throughout in the arbitrary frame.
  func testManagerDeliversItInTheNorthFramesOnly() throws {
    for frame in [CMAttitudeReferenceFrame.xMagneticNorthZVertical, .xArbitraryZVertical] {
      let clock = VirtualClock()
      let manager = CMMotionManager(
        source: Synthetic.player(
          Synthetic.still(.aboutZ(0.4), count: 500), sensors: .nineAxis, clock: clock))
      let queue = makeSerialQueue()
      let motions = Collector<CMDeviceMotion>()
      manager.startDeviceMotionUpdates(using: frame, to: queue) { motion, _ in
        if let motion { motions.append(motion) }
      }
      clock.advance(by: 5)
      queue.waitUntilAllOperationsAreFinished()
      manager.stopDeviceMotionUpdates()
      let last = try XCTUnwrap(motions.all.last)
      if frame == .xArbitraryZVertical {
        XCTAssertTrue(motions.all.allSatisfy { $0.headingAccuracy == -1 })
      } else {
        XCTAssertGreaterThan(last.headingAccuracy, 5.9)
        XCTAssertLessThan(last.headingAccuracy, 10)
      }
    }
  }

  func testCodingKeepsItAndTheDefaultIsInvalid() throws {
    let motion = CMDeviceMotion(
      timestamp: 3, attitude: CMAttitude(), rotationRate: CMRotationRate(),
      gravity: CMAcceleration(x: 0, y: 0, z: -1), userAcceleration: CMAcceleration(),
      magneticField: CMCalibratedMagneticField(), heading: 120, headingAccuracy: 7.5)
    let data = try NSKeyedArchiver.archivedData(withRootObject: motion, requiringSecureCoding: true)
    let decoded = try XCTUnwrap(
      NSKeyedUnarchiver.unarchivedObject(ofClass: CMDeviceMotion.self, from: data))
    XCTAssertEqual(decoded.headingAccuracy, 7.5)
    XCTAssertEqual(decoded.heading, 120)
    XCTAssertEqual(CMDeviceMotion().headingAccuracy, -1)
  }

  func testAuthorizationStatusOfTheMotionManager() {
    XCTAssertEqual(CMMotionManager.authorizationStatus, CMAuthorizationStatus.current)
  }
}
