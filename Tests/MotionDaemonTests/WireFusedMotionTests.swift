// SPDX-License-Identifier: Apache-2.0

import MotionDaemonProtocol
import MotionFusion
import MotionMath
import SwiftProtobuf
import Testing

@testable import OpenCoreMotion

@Suite struct WireFusedMotionTests {
  static func estimate(field: SIMD3<Double>?) -> DeviceMotionEstimate {
    DeviceMotionEstimate(
      timestamp: 12_345.678_901_234_5,
      earthFromSensor6D: Quaternion(w: 0.9, x: 0.1, y: -0.3, z: 0.2).normalized,
      earthFromSensor9D: Quaternion(w: -0.2, x: 0.7, y: 0.1, z: 0.05).normalized,
      hasMagneticHeading: field != nil, gyroscope: SIMD3(0.1, -2.5, 1e-9),
      gyroscopeBias: SIMD3(1e-3, -2e-3, 5e-4), accelerometer: SIMD3(0.3, -9.7, 1.2),
      calibratedMagneticField: field,
      magneticCalibrationAccuracy: field == nil ? .uncalibrated : .medium,
      needsCalibrationMotion: field == nil,
      headingUncertainty: field == nil ? nil : 0.0312)
  }

  /// Every field crosses the socket bit for bit (protobuf doubles are IEEE 754 as they are).
  @Test func anEstimateRoundTripsExactly() throws {
    for field in [nil, SIMD3(21.5, -3.25, -40.125)] as [SIMD3<Double>?] {
      let original = Self.estimate(field: field)
      var message = WireServerMessage()
      message.requestID = 7
      var batch = Opencoremotion_Daemon_V1_FusedMotionBatch()
      batch.estimates = [Wire.fusedMotion(original, receivedBootNanoseconds: 99)]
      message.fusedMotion = batch
      let bytes: [UInt8] = try message.serializedBytes()
      let decoded = try WireServerMessage(serializedBytes: bytes)
      guard case .fusedMotion(let received) = decoded.body else {
        Issue.record("decoded \(String(describing: decoded.body))")
        continue
      }
      #expect(received.estimates.count == 1)
      #expect(received.estimates[0].receivedBootNs == 99)
      #expect(Wire.deviceMotionEstimate(received.estimates[0]) == original)
    }
  }

  /// A message with fields missing or out of range (another program, a newer daemon) decodes to an
  /// estimate the frame conversion refuses, never to NaN in an app's device motion.
  @Test func aDefectiveMessageIsRefusedNotDelivered() {
    var wire = WireFusedMotion()
    wire.timestamp = 1
    wire.magneticCalibrationAccuracy = 77
    let estimate = Wire.deviceMotionEstimate(wire)
    #expect(estimate.magneticCalibrationAccuracy == .uncalibrated)
    #expect(estimate.calibratedMagneticField == nil)
    // A daemon from before the field sends none: no uncertainty, so no heading accuracy.
    #expect(estimate.headingUncertainty == nil)
    wire.headingUncertainty = -0.5
    #expect(Wire.deviceMotionEstimate(wire).headingUncertainty == nil)
    wire.headingUncertainty = .nan
    #expect(Wire.deviceMotionEstimate(wire).headingUncertainty == nil)
    for frame in [CMAttitudeReferenceFrame.xArbitraryZVertical, .xArbitraryCorrectedZVertical] {
      #expect(ReferenceFrameAligner(frame: frame).deviceMotion(from: estimate) == nil)
    }
    var infinite = Wire.fusedMotion(Self.estimate(field: nil), receivedBootNanoseconds: 0)
    infinite.gyroscopeBias.x = .infinity
    #expect(
      ReferenceFrameAligner(frame: .xArbitraryZVertical).deviceMotion(
        from: Wire.deviceMotionEstimate(infinite)) == nil)
  }
}
