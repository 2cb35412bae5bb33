// SPDX-License-Identifier: Apache-2.0

/// An angular velocity in rad/s about the device's three axes (right-hand rule: positive is
/// counter-clockwise when looking down the axis toward the origin).
public struct CMRotationRate: Sendable {
  /// Rotation rate about the device's x axis, rad/s.
  public var x: Double
  /// Rotation rate about the device's y axis, rad/s.
  public var y: Double
  /// Rotation rate about the device's z axis, rad/s.
  public var z: Double

  /// Creates a zero rotation rate.
  public init() {
    self.init(x: 0, y: 0, z: 0)
  }

  /// Creates a rotation rate from its components in rad/s.
  public init(x: Double, y: Double, z: Double) {
    self.x = x
    self.y = y
    self.z = z
  }
}

extension CMRotationRate: ThreeAxisValue {}
