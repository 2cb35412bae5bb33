// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The storage format of one scan element in an IIO buffer record, as the kernel prints it in
/// `scan_elements/<channel>_type`: `[be|le]:[s|u]bits/storagebits[Xrepeat]>>shift`.
///
/// Examples from real drivers: `be:s16/16>>0` (inv_mpu6050 axes), `le:s16/32>>0` (HID sensor hub
/// axes in 32-bit slots), `le:s12/16>>4`, `le:s64/64>>0` (the timestamp channel, nanoseconds).
public struct IIOScanType: Hashable, Sendable, CustomStringConvertible {
  /// Byte order of the stored value.
  public enum Endianness: String, Sendable {
    case big = "be"
    case little = "le"
  }

  /// Byte order of the stored value.
  public var endianness: Endianness
  /// Whether the value is two's-complement signed (`s`) rather than unsigned (`u`).
  public var isSigned: Bool
  /// The number of meaningful bits (after shifting), 1 ... `storageBits`.
  public var realBits: Int
  /// The size of one stored value in bits: 8, 16, 32 or 64.
  public var storageBits: Int
  /// How many values of this format the element holds back to back (1 when the kernel prints no
  /// `X` part), at most ``maximumRepeatCount``.
  public var repeatCount: Int
  /// The right shift to apply before masking out `realBits` bits.
  public var shift: Int

  /// The largest repeat count: the kernel keeps it in a `u8` (`struct iio_scan_type.repeat`), so a
  /// sysfs tree printing more is not a kernel's, and its records are not sized from it.
  public static let maximumRepeatCount = 255

  /// Creates a format from its parts; returns nil when they are inconsistent (storage not
  /// 8/16/32/64 bits, more real bits than storage, a shift that pushes the value out of its
  /// storage, or a repeat count outside 1 ... ``maximumRepeatCount``).
  public init?(
    endianness: Endianness, isSigned: Bool, realBits: Int, storageBits: Int, repeatCount: Int = 1,
    shift: Int = 0
  ) {
    guard [8, 16, 32, 64].contains(storageBits), realBits >= 1, realBits <= storageBits,
      shift >= 0, shift + realBits <= storageBits, repeatCount >= 1,
      repeatCount <= Self.maximumRepeatCount
    else { return nil }
    self.endianness = endianness
    self.isSigned = isSigned
    self.realBits = realBits
    self.storageBits = storageBits
    self.repeatCount = repeatCount
    self.shift = shift
  }

  /// Parses the kernel's text (surrounding whitespace allowed; `>>shift` optional, as in the ABI
  /// document's examples). Returns nil for anything else, including unknown sign letters.
  public init?(parsing text: String) {
    var rest = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
    let endianness: Endianness
    if rest.hasPrefix("be:") {
      endianness = .big
    } else if rest.hasPrefix("le:") {
      endianness = .little
    } else {
      return nil
    }
    rest = rest.dropFirst(3)
    guard let signLetter = rest.first, signLetter == "s" || signLetter == "u" else { return nil }
    rest = rest.dropFirst()
    func takeNumber() -> Int? {
      let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
      guard !digits.isEmpty, digits.count <= 6, let value = Int(digits) else { return nil }
      rest = rest.dropFirst(digits.count)
      return value
    }
    guard let realBits = takeNumber(), rest.first == "/" else { return nil }
    rest = rest.dropFirst()
    guard let storageBits = takeNumber() else { return nil }
    var repeatCount = 1
    if rest.first == "X" {
      rest = rest.dropFirst()
      guard let count = takeNumber() else { return nil }
      repeatCount = count
    }
    var shift = 0
    if rest.hasPrefix(">>") {
      rest = rest.dropFirst(2)
      guard let value = takeNumber() else { return nil }
      shift = value
    }
    guard rest.isEmpty else { return nil }
    self.init(
      endianness: endianness, isSigned: signLetter == "s", realBits: realBits,
      storageBits: storageBits, repeatCount: repeatCount, shift: shift)
  }

  /// The element's size in bytes in a record (`storageBits / 8 × repeatCount`).
  public var byteCount: Int { storageBits / 8 * repeatCount }

  /// The kernel's spelling of this format.
  public var description: String {
    let sign = isSigned ? "s" : "u"
    let repeats = repeatCount > 1 ? "X\(repeatCount)" : ""
    return "\(endianness.rawValue):\(sign)\(realBits)/\(storageBits)\(repeats)>>\(shift)"
  }

  /// Decodes the value stored at `offset` in `bytes` (the first of the repeats): byte-swap, shift,
  /// mask to `realBits` (upper storage bits may hold garbage, as HID hubs' do), sign-extend.
  ///
  /// The caller guarantees `offset + storageBits / 8 <= bytes.count`.
  @inlinable
  public func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
    let width = storageBits / 8
    var word: UInt64 = 0
    switch endianness {
    case .big:
      for i in 0..<width { word = (word << 8) | UInt64(bytes[offset + i]) }
    case .little:
      for i in stride(from: width - 1, through: 0, by: -1) {
        word = (word << 8) | UInt64(bytes[offset + i])
      }
    }
    word >>= UInt64(shift)
    if realBits < 64 {
      word &= (UInt64(1) << UInt64(realBits)) &- 1
      if isSigned, word & (UInt64(1) << UInt64(realBits - 1)) != 0 {
        word |= ~((UInt64(1) << UInt64(realBits)) &- 1)
      }
    }
    return isSigned
      ? Int64(bitPattern: word) : Int64(truncatingIfNeeded: min(word, UInt64(Int64.max)))
  }
}
