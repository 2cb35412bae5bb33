// SPDX-License-Identifier: Apache-2.0

/// A sampling-frequency attribute of a device: `sampling_frequency` for the whole device, or a
/// per-type one such as `in_accel_sampling_frequency` (HID sensor hubs, bmi160, fxos8700).
public struct IIOSamplingControl: Hashable, Sendable {
  /// The attribute's name relative to the device directory.
  public var attribute: String
  /// The channel kind it governs; nil for the device-wide attribute.
  public var kind: IIOChannelKind?
  /// The current rate in Hz, when readable as a finite number (discovery leaves out `inf` and
  /// `nan`).
  public var current: Double?
  /// The rates the device offers (`<attribute>_available`), when listed.
  public var available: IIOFrequencySet?

  public init(
    attribute: String, kind: IIOChannelKind?, current: Double?, available: IIOFrequencySet?
  ) {
    self.attribute = attribute
    self.kind = kind
    self.current = current
    self.available = available
  }

  /// Whether this control applies to channels of `kind`.
  public func governs(_ kind: IIOChannelKind) -> Bool {
    self.kind == nil || self.kind == kind
  }
}
