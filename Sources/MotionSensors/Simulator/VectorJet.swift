// SPDX-License-Identifier: Apache-2.0

/// A vector function of time with its first and second derivatives (position, velocity,
/// acceleration).
struct VectorJet {
  var value: SIMD3<Double>
  var rate: SIMD3<Double>
  var acceleration: SIMD3<Double>

  static let zero = VectorJet(value: .zero, rate: .zero, acceleration: .zero)

  /// The jet `direction · scalar` for a constant direction.
  @inline(__always)
  init(direction: SIMD3<Double>, _ scalar: Jet) {
    value = direction * scalar.value
    rate = direction * scalar.rate
    acceleration = direction * scalar.acceleration
  }

  @inline(__always)
  init(value: SIMD3<Double>, rate: SIMD3<Double>, acceleration: SIMD3<Double>) {
    self.value = value
    self.rate = rate
    self.acceleration = acceleration
  }

  @inline(__always)
  static func + (a: VectorJet, b: VectorJet) -> VectorJet {
    VectorJet(
      value: a.value + b.value, rate: a.rate + b.rate, acceleration: a.acceleration + b.acceleration
    )
  }
}
