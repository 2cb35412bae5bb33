// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// `CMDeviceMotion.headingAccuracy` (iOS 27): two standard deviations of the fusion's heading
/// uncertainty in the north frames, −1 where the heading is invalid (the arbitrary frames, an
/// uncalibrated magnetometer), kept through coding; and
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

  /// The magnetic-north samples of a manager over `clock.advance(by: duration)`.
  private func northSamples(
    from source: StreamPlayer, clock: VirtualClock, duration: Double,
    frame: CMAttitudeReferenceFrame = .xMagneticNorthZVertical
  ) -> [CMDeviceMotion] {
    let manager = CMMotionManager(source: source)
    let queue = makeSerialQueue()
    let motions = Collector<CMDeviceMotion>()
    manager.deviceMotionUpdateInterval = 0.1
    manager.startDeviceMotionUpdates(using: frame, to: queue) { motion, _ in
      if let motion { motions.append(motion) }
    }
    clock.advance(by: duration)
    queue.waitUntilAllOperationsAreFinished()
    manager.stopDeviceMotionUpdates()
    return motions.all
  }

  /// A still device has a magnetic heading from its raw field but no accuracy: a hard iron
  /// nothing has fitted could put it anywhere, and its field is as steady as a calibrated one's.
  /// So −1 (invalid, as `CLHeading` says of an uncalibrated compass), with the magnetic field's
  /// accuracy `.uncalibrated` beside it; in the arbitrary frame −1 too.
  func testInvalidWhileTheMagnetometerIsUncalibrated() throws {
    for frame in [CMAttitudeReferenceFrame.xMagneticNorthZVertical, .xArbitraryZVertical] {
      let clock = VirtualClock()
      let source = Synthetic.player(
        Synthetic.still(.aboutZ(0.4), count: 500), sensors: .nineAxis, clock: clock)
      let motions = northSamples(from: source, clock: clock, duration: 5, frame: frame)
      XCTAssertGreaterThan(motions.count, 10)
      XCTAssertTrue(motions.allSatisfy { $0.headingAccuracy == -1 }, "\(frame)")
      XCTAssertEqual(motions.last?.magneticField.accuracy, .uncalibrated)
      if frame == .xMagneticNorthZVertical {
        XCTAssertTrue(motions.allSatisfy { $0.heading >= 0 }, "the heading itself is given")
      }
    }
  }

  /// The simulated phone (hard iron (12, −8, 20) µT) turned through a figure 8: invalid at the
  /// start, then, once the calibration is in use, a few degrees over the last 10 s (the 1°
  /// floor doubled plus what the turning adds; bound 10°). Whether the error lies within it is
  /// `MagnetometerCalibrationSimulationTests`'s check, against the simulator's ground truth.
  func testReportedOnceTheCalibrationIsInUse() throws {
    let clock = VirtualClock()
    let source = StreamPlayer(
      SimulatedSensorStream(scenario: try Scenario.named("figure8")), pacing: .virtual(clock))
    let motions = northSamples(from: source, clock: clock, duration: 26)
    XCTAssertEqual(motions.first?.headingAccuracy, -1)
    let last = motions.filter { $0.timestamp >= (motions.last?.timestamp ?? 0) - 10 }
    XCTAssertGreaterThan(last.count, 50)
    XCTAssertTrue(last.allSatisfy { $0.headingAccuracy > 0 && $0.headingAccuracy < 10 })
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
