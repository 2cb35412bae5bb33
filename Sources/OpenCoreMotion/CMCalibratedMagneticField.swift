// SPDX-License-Identifier: Apache-2.0

/// A magnetic field in µT with the device's own (hard- and soft-iron) distortion removed, and how
/// well that distortion is known.
public struct CMCalibratedMagneticField: Sendable {
  /// The calibrated field, µT, device frame. Zero when there is no magnetometer data.
  public var field: CMMagneticField
  /// How well the calibration is known; `.uncalibrated` without a magnetometer.
  public var accuracy: CMMagneticFieldCalibrationAccuracy

  /// Creates a zero field with accuracy `.uncalibrated`.
  public init() {
    self.init(field: CMMagneticField(), accuracy: .uncalibrated)
  }

  /// Creates a calibrated field.
  public init(field: CMMagneticField, accuracy: CMMagneticFieldCalibrationAccuracy) {
    self.field = field
    self.accuracy = accuracy
  }
}
