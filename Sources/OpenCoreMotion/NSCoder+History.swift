// SPDX-License-Identifier: Apache-2.0

import Foundation

// Coding helpers for the pedometer, activity, altitude and recorder data classes: dates as seconds
// since the reference date, optional numbers as a double that is simply absent when `nil`.
extension NSCoder {
  func encodeDate(_ date: Date, forKey key: String) {
    encode(date.timeIntervalSinceReferenceDate, forKey: key)
  }

  func decodeDate(forKey key: String) -> Date {
    Date(timeIntervalSinceReferenceDate: decodeDouble(forKey: key))
  }

  func encodeOptionalNumber(_ number: NSNumber?, forKey key: String) {
    if let number { encode(number.doubleValue, forKey: key) }
  }

  func decodeOptionalNumber(forKey key: String) -> NSNumber? {
    containsValue(forKey: key) ? NSNumber(value: decodeDouble(forKey: key)) : nil
  }

  /// A whole, non-negative count written by `encodeOptionalNumber` (floors): `.some(nil)` when the
  /// archive has none, and `nil` when what it holds is no count (NaN, infinite, negative,
  /// fractional or beyond `Int`). An archive is outside input: `NSNumber.intValue` of such a
  /// value gave floors of -9.2e18.
  func decodeOptionalCount(forKey key: String) -> NSNumber?? {
    guard containsValue(forKey: key) else { return .some(nil) }
    let value = decodeDouble(forKey: key)
    guard value >= 0, let count = Int(exactly: value) else { return nil }
    return .some(NSNumber(value: count))
  }

  /// Encodes an unsigned 64-bit integer (a recorded sample's identifier) as its bit pattern:
  /// NSCoder has no unsigned 64-bit integers.
  func encodeUnsigned(_ value: UInt64, forKey key: String) {
    encode(Int64(bitPattern: value), forKey: key)
  }

  func decodeUnsigned(forKey key: String) -> UInt64 {
    UInt64(bitPattern: decodeInt64(forKey: key))
  }
}
