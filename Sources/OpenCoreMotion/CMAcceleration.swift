// SPDX-License-Identifier: Apache-2.0

/// An acceleration in g (1 g = 9.80665 m/s²) along the device's three axes, with Core Motion's
/// sign: a device lying face up at rest reads (0, 0, −1).
///
/// Mirrors Apple's C struct: plain stored fields, a zero initializer, and no `Equatable`
/// conformance (so that code which adds its own conformance, as is common on Apple platforms, still
/// compiles).
public struct CMAcceleration: Sendable {
  /// Acceleration along the device's x axis (toward the right edge in portrait), g.
  public var x: Double
  /// Acceleration along the device's y axis (toward the top in portrait), g.
  public var y: Double
  /// Acceleration along the device's z axis (out of the screen), g.
  public var z: Double

  /// Creates a zero acceleration.
  public init() {
    self.init(x: 0, y: 0, z: 0)
  }

  /// Creates an acceleration from its components in g.
  public init(x: Double, y: Double, z: Double) {
    self.x = x
    self.y = y
    self.z = z
  }
}

extension CMAcceleration: ThreeAxisValue {}
