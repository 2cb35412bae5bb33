// SPDX-License-Identifier: Apache-2.0

/// A magnetic flux density in microtesla (µT) along the device's three axes.
public struct CMMagneticField: Sendable {
  /// Field along the device's x axis, µT.
  public var x: Double
  /// Field along the device's y axis, µT.
  public var y: Double
  /// Field along the device's z axis, µT.
  public var z: Double

  /// Creates a zero field.
  public init() {
    self.init(x: 0, y: 0, z: 0)
  }

  /// Creates a field from its components in µT.
  public init(x: Double, y: Double, z: Double) {
    self.x = x
    self.y = y
    self.z = z
  }
}

extension CMMagneticField: ThreeAxisValue {}
