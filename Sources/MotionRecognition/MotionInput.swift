// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// One reading fed to the recognisers in this module, in Core Motion's units and signs.
///
/// Only ``timestamp`` and ``acceleration`` are required, so the recognisers run on bare
/// `CMAccelerometerData`. When the caller also has `CMDeviceMotion`, passing ``gravity``,
/// ``userAcceleration`` and ``attitude`` gives cleaner results: the recognisers use them instead
/// of separating gravity themselves.
public struct MotionInput: Sendable, Equatable {
  /// Seconds on the source's clock (any origin; only differences matter).
  public var timestamp: Double
  /// Total acceleration in g with Core Motion's sign: lying face up at rest reads (0, 0, −1).
  public var acceleration: SIMD3<Double>
  /// The gravity part of ``acceleration`` in g (`CMDeviceMotion.gravity`), if known.
  public var gravity: SIMD3<Double>?
  /// The part of ``acceleration`` the user imparts, in g (`CMDeviceMotion.userAcceleration`), if
  /// known. With Core Motion's sign this points *opposite* to the device's kinematic acceleration.
  public var userAcceleration: SIMD3<Double>?
  /// The attitude `earthFromSensor` (`CMDeviceMotion.attitude.quaternion`), if known.
  public var attitude: Quaternion?
  /// The bias-corrected rotation rate in rad/s, if known.
  public var rotationRate: SIMD3<Double>?

  /// Creates an input from an accelerometer reading and, optionally, fused device-motion values.
  public init(
    timestamp: Double,
    acceleration: SIMD3<Double>,
    gravity: SIMD3<Double>? = nil,
    userAcceleration: SIMD3<Double>? = nil,
    attitude: Quaternion? = nil,
    rotationRate: SIMD3<Double>? = nil
  ) {
    self.timestamp = timestamp
    self.acceleration = acceleration
    self.gravity = gravity
    self.userAcceleration = userAcceleration
    self.attitude = attitude
    self.rotationRate = rotationRate
  }

  /// Creates an input from device-motion values; the total acceleration is their sum.
  public init(
    timestamp: Double,
    gravity: SIMD3<Double>,
    userAcceleration: SIMD3<Double>,
    attitude: Quaternion? = nil,
    rotationRate: SIMD3<Double>? = nil
  ) {
    self.init(
      timestamp: timestamp, acceleration: gravity + userAcceleration, gravity: gravity,
      userAcceleration: userAcceleration, attitude: attitude, rotationRate: rotationRate)
  }
}
