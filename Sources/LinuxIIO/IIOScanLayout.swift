// SPDX-License-Identifier: Apache-2.0

/// Where each enabled scan element sits in one buffer record, computed with the kernel's rules
/// (`iio_compute_scan_bytes`).
///
/// Elements appear in ascending scan index; each is aligned to its own size (`storageBits / 8 ×
/// repeat`), and the whole record is padded to a multiple of its largest element. So three
/// `le:s16/16` axes and a `le:s64/64` timestamp take offsets 0, 2, 4 and 8 in a 16-byte record.
public struct IIOScanLayout: Hashable, Sendable {
  /// One enabled element and its place in the record.
  public struct Element: Hashable, Sendable {
    /// The scan element's name without suffix, e.g. `in_accel_x` or `in_timestamp`.
    public var name: String
    /// The kernel's scan index (`<name>_index`).
    public var index: Int
    /// The storage format (`<name>_type`).
    public var type: IIOScanType
    /// The byte offset within the record.
    public var offset: Int

    public init(name: String, index: Int, type: IIOScanType, offset: Int = 0) {
      self.name = name
      self.index = index
      self.type = type
      self.offset = offset
    }
  }

  /// The enabled elements in record order (ascending scan index), with offsets filled in.
  public let elements: [Element]
  /// The size of one record in bytes.
  public let recordSize: Int

  /// Lays out `elements` (in any order; offsets are ignored and recomputed).
  public init(_ elements: [Element]) {
    let ordered = elements.sorted { ($0.index, $0.name) < ($1.index, $1.name) }
    var placed: [Element] = []
    var bytes = 0
    var largest = 0
    for var element in ordered {
      let length = element.type.byteCount
      bytes = Self.align(bytes, to: length)
      element.offset = bytes
      bytes += length
      largest = Swift.max(largest, length)
      placed.append(element)
    }
    self.elements = placed
    self.recordSize = largest > 0 ? Self.align(bytes, to: largest) : 0
  }

  /// The element called `name`, if enabled.
  public func element(named name: String) -> Element? {
    elements.first { $0.name == name }
  }

  /// Rounds `value` up to a multiple of `alignment` (the kernel's `ALIGN`, for any positive size).
  static func align(_ value: Int, to alignment: Int) -> Int {
    guard alignment > 1 else { return value }
    return (value + alignment - 1) / alignment * alignment
  }
}
