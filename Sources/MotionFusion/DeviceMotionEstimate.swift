// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// One update of a ``DeviceMotionEstimator``: the sample that went in and the state that came out,
/// in library units. It is everything a reference frame needs to make a `CMDeviceMotion`, so it is
/// also what the motion daemon sends its clients (it fuses once for all of them; each client turns
/// the estimate into its own reference frame).
///
/// Earth frame NWU (x north, y west, z up), as ``DeviceMotionEstimator``'s outputs.
public struct DeviceMotionEstimate: Sendable, Equatable {
  /// Seconds on the source's clock.
  public var timestamp: Double
  /// Sensor to earth without magnetometer (arbitrary heading).
  public var earthFromSensor6D: Quaternion
  /// Sensor to earth with x toward magnetic north (equal to 6D before magnetometer data).
  public var earthFromSensor9D: Quaternion
  /// Whether the 9D attitude has a magnetic heading yet.
  public var hasMagneticHeading: Bool
  /// Raw gyroscope, rad/s.
  public var gyroscope: SIMD3<Double>
  /// Estimated gyroscope bias, rad/s.
  public var gyroscopeBias: SIMD3<Double>
  /// Specific force, m/s² (+9.81 on the up axis at rest), in the sensor axes of the instant the
  /// attitudes describe: the sample turned by the fraction of a degree the device rotated since
  /// the instant it describes (``AttitudeEstimator/State/sampleToOutputRotation``), so that it and the
  /// attitude's gravity give the user acceleration without gravity leaking in.
  public var accelerometer: SIMD3<Double>
  /// Calibrated field, µT, or `nil` without magnetometer data.
  public var calibratedMagneticField: SIMD3<Double>?
  /// Accuracy of the field calibration.
  public var magneticCalibrationAccuracy: MagneticCalibrationAccuracy
  /// Whether the magnetometer needs calibration motion before a magnetic heading can be trusted.
  public var needsCalibrationMotion: Bool
  /// Standard deviation of the 9D heading's error, rad (``AttitudeEstimator/headingUncertainty``);
  /// `nil` before a magnetic heading.
  public var headingUncertainty: Double?

  public init(
    timestamp: Double, earthFromSensor6D: Quaternion, earthFromSensor9D: Quaternion,
    hasMagneticHeading: Bool, gyroscope: SIMD3<Double>, gyroscopeBias: SIMD3<Double>,
    accelerometer: SIMD3<Double>, calibratedMagneticField: SIMD3<Double>?,
    magneticCalibrationAccuracy: MagneticCalibrationAccuracy, needsCalibrationMotion: Bool,
    headingUncertainty: Double? = nil
  ) {
    self.timestamp = timestamp
    self.earthFromSensor6D = earthFromSensor6D
    self.earthFromSensor9D = earthFromSensor9D
    self.hasMagneticHeading = hasMagneticHeading
    self.gyroscope = gyroscope
    self.gyroscopeBias = gyroscopeBias
    self.accelerometer = accelerometer
    self.calibratedMagneticField = calibratedMagneticField
    self.magneticCalibrationAccuracy = magneticCalibrationAccuracy
    self.needsCalibrationMotion = needsCalibrationMotion
    self.headingUncertainty = headingUncertainty
  }
}

extension DeviceMotionEstimator {
  /// The estimate after the last update, which read `gyroscope` and `accelerometer` at
  /// `timestamp` (the accelerometer is turned to the attitudes' instant).
  public func estimate(
    timestamp: Double, gyroscope: SIMD3<Double>, accelerometer: SIMD3<Double>
  ) -> DeviceMotionEstimate {
    DeviceMotionEstimate(
      timestamp: timestamp, earthFromSensor6D: earthFromSensor6D,
      earthFromSensor9D: earthFromSensor9D, hasMagneticHeading: hasMagneticHeading,
      gyroscope: gyroscope, gyroscopeBias: gyroscopeBias,
      accelerometer: attitudeEstimator.atOutputInstant(accelerometer),
      calibratedMagneticField: calibratedMagneticField,
      magneticCalibrationAccuracy: magneticCalibrationAccuracy,
      needsCalibrationMotion: needsCalibrationMotion,
      headingUncertainty: attitudeEstimator.headingUncertainty)
  }
}
