// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A value a signal filter can smooth: a vector space over `Double` with a norm.
///
/// The filters in this module are linear, so they need only addition, subtraction and scaling; the
/// adaptive variants also need a size to measure how much the signal changed. `Double` (one axis)
/// and `SIMD3<Double>` (a whole accelerometer or gyroscope reading) conform.
public protocol FilterableValue: Sendable {
  /// The additive identity.
  static var zero: Self { get }
  /// The sum of two values.
  static func + (lhs: Self, rhs: Self) -> Self
  /// The difference of two values.
  static func - (lhs: Self, rhs: Self) -> Self
  /// A value scaled by a factor.
  static func * (lhs: Double, rhs: Self) -> Self
  /// The size of the value (absolute value or Euclidean length), in the value's own unit.
  var filterNorm: Double { get }
}

extension Double: FilterableValue {
  /// The absolute value.
  @inlinable
  public var filterNorm: Double { Swift.abs(self) }
}

extension SIMD3: FilterableValue where Scalar == Double {
  /// The Euclidean length.
  @inlinable
  public var filterNorm: Double { length }
}

extension FilterableValue {
  /// Whether the filters take this value: its size is finite, so no component is NaN or infinite.
  /// A filter's state is a running blend of its inputs, so one non-finite sample would make every
  /// later output NaN or infinite; the filters skip such a sample instead. (A vector with finite
  /// components so huge that its length overflows, beyond 10¹⁵⁰, is skipped too; no sensor reads
  /// that.)
  var isFilterable: Bool { filterNorm.isFinite }
}
