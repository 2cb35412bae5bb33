// SPDX-License-Identifier: Apache-2.0

/// A change of the device's physical orientation, as reported by ``OrientationClassifier``.
public struct OrientationChange: Sendable, Hashable {
  /// The time the change was committed, seconds on the input's clock.
  public var timestamp: Double
  /// The orientation before the change.
  public var previous: DeviceOrientation
  /// The orientation after the change.
  public var orientation: DeviceOrientation

  /// Creates a change record.
  public init(timestamp: Double, previous: DeviceOrientation, orientation: DeviceOrientation) {
    self.timestamp = timestamp
    self.previous = previous
    self.orientation = orientation
  }
}
