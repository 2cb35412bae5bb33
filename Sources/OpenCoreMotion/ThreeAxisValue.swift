// SPDX-License-Identifier: Apache-2.0

/// Core Motion's three-axis value structs (`CMAcceleration`, `CMRotationRate`, `CMMagneticField`),
/// which must stay separate types to match Apple's API, seen as one kind of value so that the
/// conversions to and from `SIMD3` are written once.
protocol ThreeAxisValue {
  var x: Double { get }
  var y: Double { get }
  var z: Double { get }
  init(x: Double, y: Double, z: Double)
}

extension ThreeAxisValue {
  /// The value with the components of `v`.
  init(_ v: SIMD3<Double>) {
    self.init(x: v.x, y: v.y, z: v.z)
  }

  /// The components as a vector.
  var vector: SIMD3<Double> { SIMD3(x, y, z) }
}
