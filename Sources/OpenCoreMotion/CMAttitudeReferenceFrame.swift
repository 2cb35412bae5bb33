// SPDX-License-Identifier: Apache-2.0

/// The earth-fixed frame that device-motion attitudes are measured against; an option set so that
/// ``CMMotionManager/availableAttitudeReferenceFrames()`` can report several at once. The start
/// methods take a single frame.
///
/// Raw values match Apple's (`1 << 0` … `1 << 3`). In every frame z points up (against gravity).
public struct CMAttitudeReferenceFrame: OptionSet, Hashable, Sendable {
  public let rawValue: UInt

  public init(rawValue: UInt) {
    self.rawValue = rawValue
  }

  /// z vertical, x horizontal along the device's heading when updates started (yaw starts at 0);
  /// gyroscope and accelerometer only, so the heading drifts slowly. The default.
  public static let xArbitraryZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 0)
  /// Like ``xArbitraryZVertical``, but the magnetometer keeps the heading from drifting. Needs a
  /// magnetometer.
  public static let xArbitraryCorrectedZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 1)
  /// z vertical, x toward magnetic north. Needs a magnetometer.
  public static let xMagneticNorthZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 2)
  /// z vertical, x toward true (geographic) north. Needs a magnetometer and a known magnetic
  /// declination.
  public static let xTrueNorthZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 3)
}

extension CMAttitudeReferenceFrame {
  /// Whether this is exactly one of the four frames.
  var isSingleFrame: Bool {
    self == .xArbitraryZVertical || self == .xArbitraryCorrectedZVertical
      || self == .xMagneticNorthZVertical || self == .xTrueNorthZVertical
  }

  /// Whether the frame's x axis points north (so `heading` is meaningful).
  var isNorthReferenced: Bool {
    self == .xMagneticNorthZVertical || self == .xTrueNorthZVertical
  }

  /// Whether the frame needs magnetometer data.
  var needsMagnetometer: Bool {
    self == .xArbitraryCorrectedZVertical || isNorthReferenced
  }
}
