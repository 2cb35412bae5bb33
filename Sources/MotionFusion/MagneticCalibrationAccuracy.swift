// SPDX-License-Identifier: Apache-2.0

/// How well the magnetometer's hard- and soft-iron distortion is known, from none to good.
/// `OpenCoreMotion` maps it one-to-one onto `CMMagneticFieldCalibrationAccuracy`.
public enum MagneticCalibrationAccuracy: Int, Sendable, Comparable, CaseIterable {
  case uncalibrated = -1
  case low = 0
  case medium = 1
  case high = 2

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
