// SPDX-License-Identifier: Apache-2.0

/// One IIO input channel of a device as found in sysfs: its kind, axis, conversion and buffer slot.
public struct IIOChannelInfo: Hashable, Sendable {
  /// The channel's type.
  public var kind: IIOChannelKind
  /// The axis: 0 = x, 1 = y, 2 = z; nil for scalar channels.
  public var axis: Int?
  /// The channel's attribute stem and scan-element name, e.g. `in_accel_x`, `in_temp`,
  /// `in_pressure0`, `in_timestamp`.
  public var name: String
  /// The attribute polled for a value, e.g. `in_accel_x_raw` or `in_pressure_input`; nil for the
  /// timestamp channel.
  public var valueAttribute: String?
  /// Whether ``valueAttribute`` is a processed `_input` value (already in the kernel's unit; scale
  /// and offset do not apply).
  public var isProcessed: Bool
  /// The kernel's scale (`<name>_scale`, else the type's shared `in_<type>_scale`); 1 when absent
  /// or unusable (not a number, infinite, zero, which would read every value as zero, or so large
  /// that one count is beyond what the sensor can measure).
  public var scale: Double
  /// The kernel's offset, added to the raw value before scaling; 0 when absent or unusable (not a
  /// number, or so large that it alone moves every reading beyond measurement). (`calibbias` is
  /// applied by the hardware and deliberately not read.)
  public var offset: Double
  /// The scan index in buffer records, when the device has a buffer with this channel.
  public var scanIndex: Int?
  /// The storage format in buffer records.
  public var scanType: IIOScanType?

  public init(
    kind: IIOChannelKind, axis: Int?, name: String, valueAttribute: String?, isProcessed: Bool,
    scale: Double = 1, offset: Double = 0, scanIndex: Int? = nil, scanType: IIOScanType? = nil
  ) {
    self.kind = kind
    self.axis = axis
    self.name = name
    self.valueAttribute = valueAttribute
    self.isProcessed = isProcessed
    self.scale = scale
    self.offset = offset
    self.scanIndex = scanIndex
    self.scanType = scanType
  }

  /// Converts a raw reading to the kernel's unit: `(raw + offset) × scale` (processed values pass
  /// through).
  @inlinable
  public func kernelValue(raw: Double) -> Double {
    isProcessed ? raw : (raw + offset) * scale
  }

  /// Converts a raw reading to `MotionSample`'s unit (before any mount matrix).
  @inlinable
  public func sampleValue(raw: Double) -> Double {
    kernelValue(raw: raw) * kind.unitFactor
  }

  /// Whether the channel can be read from a buffer.
  public var isBufferable: Bool { scanIndex != nil && scanType != nil }
}
