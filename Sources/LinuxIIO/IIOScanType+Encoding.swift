// SPDX-License-Identifier: Apache-2.0

extension IIOScanType {
  /// Stores `value` at `offset` in this format (the inverse of ``decode(_:at:)``): truncate to
  /// `realBits`, shift left, fill the bits above with `garbage` (real HID hubs leave junk there),
  /// write in the element's byte order. Used by fake devices in tests and the benchmark.
  func encode(_ value: Int64, into bytes: inout [UInt8], at offset: Int, garbage: UInt64 = 0) {
    let width = storageBits / 8
    let valueMask: UInt64 = realBits >= 64 ? ~0 : (UInt64(1) << UInt64(realBits)) &- 1
    var word = (UInt64(bitPattern: value) & valueMask) << UInt64(shift)
    let usedBits = realBits + shift
    if usedBits < storageBits { word |= garbage << UInt64(usedBits) }
    for i in 0..<width {
      let byte = UInt8(truncatingIfNeeded: word >> UInt64(8 * i))
      switch endianness {
      case .little: bytes[offset + i] = byte
      case .big: bytes[offset + width - 1 - i] = byte
      }
    }
  }
}

extension IIOScanLayout {
  /// Packs one record: each element's value from `values` by name (0 when missing).
  package func pack(_ values: [String: Int64], garbage: UInt64 = 0) -> [UInt8] {
    var record = [UInt8](repeating: 0, count: recordSize)
    for element in elements {
      element.type.encode(
        values[element.name] ?? 0, into: &record, at: element.offset, garbage: garbage)
    }
    return record
  }
}
