// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A parsed JSON document that keeps integers exact.
///
/// Sensor Logger sends epoch nanoseconds (about 1.7 × 10¹⁸, beyond 2⁵³) as bare JSON numbers, so a
/// parser that turns every number into a `Double` would lose up to a few hundred nanoseconds.
/// Integers that fit in `Int64` are kept as such; everything else becomes a `Double`.
package enum PhoneJSON: Decodable, Equatable, Sendable {
  case null
  case bool(Bool)
  case integer(Int64)
  case number(Double)
  case string(String)
  case array([PhoneJSON])
  case object([String: PhoneJSON])

  package init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Double.self) {
      // Numbers are the common case, so they are tried first; only integral ones are decoded
      // again as Int64 (which keeps all 19 digits of an epoch-nanosecond time).
      if value.rounded() == value, let exact = try? container.decode(Int64.self) {
        self = .integer(exact)
      } else {
        self = .number(value)
      }
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode([String: PhoneJSON].self) {
      self = .object(value)
    } else {
      self = .array(try container.decode([PhoneJSON].self))
    }
  }

  /// Parses a UTF-8 JSON document.
  package static func parse(_ bytes: [UInt8]) throws -> PhoneJSON {
    try JSONDecoder().decode(PhoneJSON.self, from: Data(bytes))
  }

  /// The member named `key` of an object.
  package subscript(key: String) -> PhoneJSON? {
    if case .object(let members) = self { return members[key] }
    return nil
  }

  /// The members of an object.
  package var objectValue: [String: PhoneJSON]? {
    if case .object(let members) = self { return members }
    return nil
  }

  /// The elements of an array.
  package var arrayValue: [PhoneJSON]? {
    if case .array(let elements) = self { return elements }
    return nil
  }

  /// A number (or a string holding one, as Sensor Logger's file export writes them). Strings such
  /// as `"nan"`, `"inf"` or `"1e999"` parse as non-finite doubles: they are not numbers here.
  package var doubleValue: Double? {
    switch self {
    case .integer(let value): return Double(value)
    case .number(let value): return value.isFinite ? value : nil
    case .string(let text):
      guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
        return nil
      }
      return value
    default: return nil
    }
  }

  /// An exact integer (or a string holding one); `nil` for fractions.
  package var int64Value: Int64? {
    switch self {
    case .integer(let value): return value
    case .number(let value):
      guard value.rounded() == value, abs(value) < 9.2e18 else { return nil }
      return Int64(value)
    case .string(let text): return Int64(text.trimmingCharacters(in: .whitespaces))
    default: return nil
    }
  }

  /// A string.
  package var stringValue: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  /// A boolean.
  package var boolValue: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }
}

/// Converts integer nanoseconds to seconds without routing the whole count through a `Double`
/// first (whole seconds and the fraction are converted separately).
package func phoneStreamSeconds(nanoseconds: Int64) -> Double {
  let (whole, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
  return Double(whole) + Double(fraction) * 1e-9
}
