// SPDX-License-Identifier: Apache-2.0

/// A three-component vector stored as three `Float`s: 12 bytes where `SIMD3<Double>` takes 32
/// (24 of data padded to 32).
///
/// For holding long recordings of sensor readings in memory. A `Float` keeps 24 significant bits,
/// more than any MEMS sensor resolves (16-bit converters), so a reading stored this way keeps
/// everything the sensor measured; arithmetic stays in `Double` (``doublePrecision``).
package struct SinglePrecisionVector3: Sendable, Equatable, BitwiseCopyable {
  package var x: Float
  package var y: Float
  package var z: Float

  /// `vector` rounded to single precision; a component beyond `Float`'s range becomes infinite
  /// (check ``isFinite``).
  @inlinable
  package init(_ vector: SIMD3<Double>) {
    x = Float(vector.x)
    y = Float(vector.y)
    z = Float(vector.z)
  }

  /// The vector in double precision.
  @inlinable
  package var doublePrecision: SIMD3<Double> { SIMD3(Double(x), Double(y), Double(z)) }

  /// Whether every component is finite.
  @inlinable
  package var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}
