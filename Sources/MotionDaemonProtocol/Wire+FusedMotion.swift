// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath

package typealias WireFusedMotion = Opencoremotion_Daemon_V1_FusedMotion
package typealias WireQuaternion = Opencoremotion_Daemon_V1_Quaternion

extension Wire {
  package static func quaternion(_ value: Quaternion) -> WireQuaternion {
    var wire = WireQuaternion()
    wire.w = value.w
    wire.x = value.x
    wire.y = value.y
    wire.z = value.z
    return wire
  }

  package static func quaternion(_ wire: WireQuaternion) -> Quaternion {
    Quaternion(w: wire.w, x: wire.x, y: wire.y, z: wire.z)
  }

  /// The wire form of one estimate of the daemon's fusion.
  package static func fusedMotion(
    _ estimate: DeviceMotionEstimate, receivedBootNanoseconds: UInt64
  ) -> WireFusedMotion {
    var wire = WireFusedMotion()
    wire.timestamp = estimate.timestamp
    wire.earthFromSensor6D = quaternion(estimate.earthFromSensor6D)
    wire.earthFromSensor9D = quaternion(estimate.earthFromSensor9D)
    wire.hasMagneticHeading_p = estimate.hasMagneticHeading
    wire.gyroscope = vector(estimate.gyroscope)
    wire.gyroscopeBias = vector(estimate.gyroscopeBias)
    wire.accelerometer = vector(estimate.accelerometer)
    if let field = estimate.calibratedMagneticField { wire.calibratedMagneticField = vector(field) }
    wire.magneticCalibrationAccuracy = Int32(estimate.magneticCalibrationAccuracy.rawValue)
    wire.needsCalibrationMotion = estimate.needsCalibrationMotion
    if let uncertainty = estimate.headingUncertainty { wire.headingUncertainty = uncertainty }
    wire.receivedBootNs = receivedBootNanoseconds
    return wire
  }

  /// The estimate a wire message carries. Missing fields read as zero (a zero quaternion is not a
  /// rotation: the client's frame conversion drops such an estimate rather than deliver it), an
  /// unknown accuracy reads as uncalibrated, and a missing, negative or non-finite heading
  /// uncertainty as none.
  package static func deviceMotionEstimate(_ wire: WireFusedMotion) -> DeviceMotionEstimate {
    DeviceMotionEstimate(
      timestamp: wire.timestamp,
      earthFromSensor6D: quaternion(wire.earthFromSensor6D),
      earthFromSensor9D: quaternion(wire.earthFromSensor9D),
      hasMagneticHeading: wire.hasMagneticHeading_p,
      gyroscope: simd(wire.gyroscope),
      gyroscopeBias: simd(wire.gyroscopeBias),
      accelerometer: simd(wire.accelerometer),
      calibratedMagneticField: wire.hasCalibratedMagneticField
        ? simd(wire.calibratedMagneticField) : nil,
      magneticCalibrationAccuracy: MagneticCalibrationAccuracy(
        rawValue: Int(wire.magneticCalibrationAccuracy)) ?? .uncalibrated,
      needsCalibrationMotion: wire.needsCalibrationMotion,
      headingUncertainty: wire.hasHeadingUncertainty && wire.headingUncertainty.isFinite
        && wire.headingUncertainty >= 0 ? wire.headingUncertainty : nil)
  }
}
