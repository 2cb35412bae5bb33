// SPDX-License-Identifier: Apache-2.0

/// A quaternion stored as four `Float`s: 16 bytes where ``Quaternion`` takes 32.
///
/// For holding an attitude per sample of a long recording. Rounding a unit quaternion to single
/// precision moves the rotation by at most about 2e-7 rad (1e-5°), far below any estimator's
/// error; arithmetic stays in `Double` (``doublePrecision``).
package struct SinglePrecisionQuaternion: Sendable, Equatable, BitwiseCopyable {
  package var w: Float
  package var x: Float
  package var y: Float
  package var z: Float

  /// `quaternion` rounded to single precision.
  @inlinable
  package init(_ quaternion: Quaternion) {
    w = Float(quaternion.w)
    x = Float(quaternion.x)
    y = Float(quaternion.y)
    z = Float(quaternion.z)
  }

  /// The quaternion in double precision (as rounded: not renormalised).
  @inlinable
  package var doublePrecision: Quaternion {
    Quaternion(w: Double(w), x: Double(x), y: Double(y), z: Double(z))
  }
}
