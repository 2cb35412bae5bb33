// SPDX-License-Identifier: Apache-2.0

import MotionDaemonProtocol
import MotionFusion
import MotionMath
import MotionSensors
import OpenCoreMotion

/// Device motion in one Core Motion reference frame for one subscription
/// (`Subscribe.device_motion_frame`): the shared estimator's estimates turned into `CMDeviceMotion`
/// by this subscription's own frame conversion (the arbitrary frames start at yaw 0 with it), at
/// its rate.
///
/// This is what a client in another language gets ready-made; `CMMotionManager` takes the fused
/// estimates instead and converts them itself (its true-north declination is its own process's).
struct DeviceMotionDelivery {
  var wireFrame: Opencoremotion_Daemon_V1_ReferenceFrame
  let aligner: ReferenceFrameAligner
  var decimator = UpdateDecimator(nominalSourcePeriod: 0)

  /// The delivery for `wireFrame` from a source with `sensors`, or the error to answer the
  /// request with.
  static func make(
    _ wireFrame: Opencoremotion_Daemon_V1_ReferenceFrame, sensors: SensorSet
  ) -> Result<DeviceMotionDelivery, DeliveryRefusal> {
    let frame: CMAttitudeReferenceFrame
    switch wireFrame {
    case .xArbitraryZVertical: frame = .xArbitraryZVertical
    case .xArbitraryCorrectedZVertical: frame = .xArbitraryCorrectedZVertical
    case .xMagneticNorthZVertical: frame = .xMagneticNorthZVertical
    case .xTrueNorthZVertical: frame = .xTrueNorthZVertical
    case .unspecified, .UNRECOGNIZED:
      return .failure(
        DeliveryRefusal(code: .invalidParameter, message: "unknown device_motion_frame"))
    }
    let declination = frame == .xTrueNorthZVertical ? CMMotionManager.currentDeclination() : nil
    let frames = CMMotionManager.attitudeReferenceFrames(sensors: sensors, declination: declination)
    guard frames.contains(frame) else {
      let reason =
        !sensors.isSuperset(of: .inertial)
        ? "the source has no accelerometer and gyroscope"
        : !sensors.contains(.magnetometer)
          ? "the source has no magnetometer, which this frame needs"
          : "true north needs the daemon's location: start it with COREMOTION_LOCATION=lat,lon"
      return .failure(DeliveryRefusal(code: .notAvailable, message: reason))
    }
    return .success(
      DeviceMotionDelivery(
        wireFrame: wireFrame,
        aligner: ReferenceFrameAligner(frame: frame, declination: declination ?? 0)))
  }

  /// The wire message for `estimate` when it is due at `interval` (s, the subscription's) and the
  /// frame can express it; `nil` otherwise.
  /// Checked against the frame before pacing, so the first update comes with the first usable
  /// estimate (as in-process).
  mutating func message(
    for estimate: DeviceMotionEstimate, interval: Double, receivedBootNanoseconds: UInt64
  ) -> Opencoremotion_Daemon_V1_DeviceMotion? {
    guard aligner.accepts(estimate), decimator.accept(estimate.timestamp, interval: interval),
      let motion = aligner.deviceMotion(from: estimate)
    else { return nil }
    var wire = Opencoremotion_Daemon_V1_DeviceMotion()
    wire.timestamp = motion.timestamp
    let q = motion.attitude.quaternion
    wire.attitude = Wire.quaternion(Quaternion(w: q.w, x: q.x, y: q.y, z: q.z))
    let r = motion.rotationRate
    wire.rotationRate = Wire.vector(SIMD3(r.x, r.y, r.z))
    let g = motion.gravity
    wire.gravity = Wire.vector(SIMD3(g.x, g.y, g.z))
    let u = motion.userAcceleration
    wire.userAcceleration = Wire.vector(SIMD3(u.x, u.y, u.z))
    let m = motion.magneticField.field
    wire.magneticField = Wire.vector(SIMD3(m.x, m.y, m.z))
    wire.magneticFieldAccuracy = motion.magneticField.accuracy.rawValue
    wire.heading = motion.heading
    wire.headingAccuracy = motion.headingAccuracy
    wire.receivedBootNs = receivedBootNanoseconds
    return wire
  }
}

/// Why a device-motion subscription was refused, as the protocol's error reply.
struct DeliveryRefusal: Error {
  var code: Opencoremotion_Daemon_V1_ErrorReply.Code
  var message: String
}
