// SPDX-License-Identifier: Apache-2.0

/// A polynomial in local time with real coefficients, lowest degree first.
struct Polynomial {
  var coefficients: [Double]

  init(_ coefficients: [Double]) {
    self.coefficients = coefficients.isEmpty ? [0] : coefficients
  }

  static func constant(_ c: Double) -> Polynomial { Polynomial([c]) }

  /// The polynomial `p(τ / scale)`.
  func scaledArgument(by scale: Double) -> Polynomial {
    var factor = 1.0
    var result = coefficients
    for i in result.indices {
      result[i] *= factor
      factor /= scale
    }
    return Polynomial(result)
  }

  static func + (a: Polynomial, b: Polynomial) -> Polynomial {
    var result = [Double](
      repeating: 0, count: Swift.max(a.coefficients.count, b.coefficients.count))
    for (i, c) in a.coefficients.enumerated() { result[i] += c }
    for (i, c) in b.coefficients.enumerated() { result[i] += c }
    return Polynomial(result)
  }

  static func * (k: Double, p: Polynomial) -> Polynomial {
    Polynomial(p.coefficients.map { k * $0 })
  }

  /// The antiderivative that equals `constant` at 0.
  func integral(constant: Double) -> Polynomial {
    var result = [constant]
    for (i, c) in coefficients.enumerated() { result.append(c / Double(i + 1)) }
    return Polynomial(result)
  }

  /// The value at `t` (Horner's scheme).
  @inline(__always)
  func callAsFunction(_ t: Double) -> Double {
    var result = 0.0
    var i = coefficients.count - 1
    while i >= 0 {
      result = result * t + coefficients[i]
      i -= 1
    }
    return result
  }

  /// `6u⁵ − 15u⁴ + 10u³` with `u = τ/duration`.
  static func smoothstep(duration: Double) -> Polynomial {
    Polynomial([0, 0, 0, 10, -15, 6]).scaledArgument(by: duration)
  }

  /// The bump `30u²(1 − u)²` with `u = τ/duration`: zero with zero slope at both ends, unit area
  /// over u ∈ [0, 1] (so `duration` seconds of it have area `duration`).
  static func bump(duration: Double) -> Polynomial {
    Polynomial([0, 0, 30, -60, 30]).scaledArgument(by: duration)
  }
}
