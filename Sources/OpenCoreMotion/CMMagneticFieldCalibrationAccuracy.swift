// SPDX-License-Identifier: Apache-2.0

import MotionFusion

/// How well the device's own magnetic distortion is known, from `uncalibrated` to `high`.
///
/// Raw values match Apple's (−1 … 2, `Int32`).
public enum CMMagneticFieldCalibrationAccuracy: Int32, Sendable {
  /// No calibration estimate (also reported when there is no magnetometer).
  case uncalibrated = -1
  /// A rough calibration.
  case low = 0
  /// A usable calibration.
  case medium = 1
  /// A good calibration.
  case high = 2
}

extension CMMagneticFieldCalibrationAccuracy {
  /// The Core Motion value of the fusion layer's accuracy (a one-to-one mapping).
  init(_ accuracy: MagneticCalibrationAccuracy) {
    self = CMMagneticFieldCalibrationAccuracy(rawValue: Int32(accuracy.rawValue)) ?? .uncalibrated
  }
}
