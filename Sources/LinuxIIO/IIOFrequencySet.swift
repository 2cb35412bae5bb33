// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The sampling frequencies in Hz a device offers (`sampling_frequency_available`): a discrete list
/// such as `10 20 50 100 200 500`, or a range `[min step max]`.
public enum IIOFrequencySet: Hashable, Sendable, CustomStringConvertible {
  /// A list of rates in Hz, ascending.
  case discrete([Double])
  /// Rates from `minimum` to `maximum` Hz in steps of `step` Hz (0: any rate in between).
  case range(minimum: Double, step: Double, maximum: Double)

  /// Parses the kernel's text; nil when it holds no rate, or anything that is not a rate (a word,
  /// a negative or infinite number, a range from below 0 Hz): such a list is malformed as a
  /// whole, as a scale that does not parse is. Its other numbers used to be kept, the rest dropped
  /// without a word.
  public init?(parsing text: String) {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.hasPrefix("[") && trimmed.hasSuffix("]") {
      let numbers = trimmed.dropFirst().dropLast().split(whereSeparator: { $0 == " " || $0 == "\t" }
      )
      .map { Double($0) }
      guard numbers.count == 3, let minimum = numbers[0], let step = numbers[1],
        let maximum = numbers[2], minimum.isFinite, step.isFinite, maximum.isFinite,
        minimum >= 0, minimum <= maximum, step >= 0
      else {
        return nil
      }
      self = .range(minimum: minimum, step: step, maximum: maximum)
      return
    }
    var rates: [Double] = []
    for word in trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
      guard let rate = Double(word), rate.isFinite, rate >= 0 else { return nil }
      rates.append(rate)
    }
    guard !rates.isEmpty else { return nil }
    self = .discrete(rates.sorted())
  }

  /// The slowest and fastest usable (non-zero) rate.
  public var bounds: ClosedRange<Double>? {
    switch self {
    case .discrete(let rates):
      let usable = rates.filter { $0 > 0 }
      guard let low = usable.first, let high = usable.last else { return nil }
      return low...high
    case .range(let minimum, let step, let maximum):
      let low = minimum > 0 ? minimum : (step > 0 ? step : Swift.min(1, maximum))
      // `[0 0 0]` offers no rate but 0 Hz: no usable bounds, so no rate is chosen from it.
      return low > 0 && low <= maximum ? low...maximum : nil
    }
  }

  /// The rate to configure for `requested` Hz: the slowest offered rate at or above it, or the
  /// fastest offered when none is fast enough. Never 0 Hz (some drivers list 0 and then produce
  /// nothing).
  ///
  /// A request at or below the slowest rate (0, a negative number, -infinity) gets the slowest,
  /// and +infinity the fastest. NaN asks for no rate in particular and gets the slowest, as a
  /// request of 0 Hz does. (`IIOSensorSource` never asks for a rate that is not finite: it takes
  /// NaN and ±infinity for 0 before asking.) A NaN
  /// used to give the fastest rate of a list and NaN from a range.
  public func bestRate(for requested: Double) -> Double? {
    guard let bounds else { return nil }
    let requested = requested.isNaN ? 0 : requested
    switch self {
    case .discrete(let rates):
      return rates.first { $0 > 0 && $0 >= requested - 1e-9 } ?? bounds.upperBound
    case .range(let minimum, let step, _):
      let clamped = Swift.min(Swift.max(requested, bounds.lowerBound), bounds.upperBound)
      guard step > 0 else { return clamped }
      // With a step so fine that the count of steps overflows (a subnormal one such as 5e-324
      // made it infinite, and so the rate the top of the range) or is more than a `Double`
      // counts exactly, the grid is finer than the rates a `Double` tells apart: the rate asked
      // for is offered.
      let count = (clamped - minimum) / step
      guard count.isFinite, count < 0x1p52 else { return clamped }
      let steps = (count - 1e-9).rounded(.up)
      return Swift.min(minimum + steps * step, bounds.upperBound)
    }
  }

  /// The kernel's spelling.
  public var description: String {
    switch self {
    case .discrete(let rates): return rates.map { IIOFormat.number($0) }.joined(separator: " ")
    case .range(let minimum, let step, let maximum):
      return "[\(IIOFormat.number(minimum)) \(IIOFormat.number(step)) \(IIOFormat.number(maximum))]"
    }
  }
}

/// Number formatting shared by listings.
enum IIOFormat {
  /// An attribute's text quoted for a message: trimmed, and cut at 40 characters (an attribute may
  /// hold up to 64 KiB, and its newline would end the message's line inside the quotes).
  static func quoted(_ text: String) -> String {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    return "\"" + (trimmed.count > 40 ? trimmed.prefix(40) + "…" : trimmed) + "\""
  }

  /// A compact, locale-independent decimal.
  static func number(_ value: Double) -> String {
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }
}
