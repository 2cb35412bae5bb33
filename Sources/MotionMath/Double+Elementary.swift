// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(ucrt)
  import ucrt
#endif

// The C library's elementary functions under `Double.` names, so that formula-heavy code reads the
// same on every platform without importing Foundation.
extension Double {
  /// The sine of `x` radians (C's `sin`).
  @inlinable public static func sin(_ x: Double) -> Double { _sin(x) }
  /// The cosine of `x` radians (C's `cos`).
  @inlinable public static func cos(_ x: Double) -> Double { _cos(x) }
  /// The tangent of `x` radians (C's `tan`).
  @inlinable public static func tan(_ x: Double) -> Double { _tan(x) }
  /// The arcsine of `x`, radians in [−π/2, π/2]; NaN outside [−1, 1] (C's `asin`).
  @inlinable public static func asin(_ x: Double) -> Double { _asin(x) }
  /// The arccosine of `x`, radians in [0, π]; NaN outside [−1, 1] (C's `acos`).
  @inlinable public static func acos(_ x: Double) -> Double { _acos(x) }
  /// The arctangent of `x`, radians in (−π/2, π/2) (C's `atan`).
  @inlinable public static func atan(_ x: Double) -> Double { _atan(x) }
  /// The angle of the point (`x`, `y`) from the x axis, radians in [−π, π] (C's `atan2`).
  @inlinable public static func atan2(_ y: Double, _ x: Double) -> Double { _atan2(y, x) }
  /// e raised to `x` (C's `exp`).
  @inlinable public static func exp(_ x: Double) -> Double { _exp(x) }
  /// The natural logarithm of `x` (C's `log`).
  @inlinable public static func log(_ x: Double) -> Double { _log(x) }
  /// `x` raised to `y` (C's `pow`).
  @inlinable public static func pow(_ x: Double, _ y: Double) -> Double { _pow(x, y) }
}

@inlinable internal func _sin(_ x: Double) -> Double { sin(x) }
@inlinable internal func _cos(_ x: Double) -> Double { cos(x) }
@inlinable internal func _tan(_ x: Double) -> Double { tan(x) }
@inlinable internal func _asin(_ x: Double) -> Double { asin(x) }
@inlinable internal func _acos(_ x: Double) -> Double { acos(x) }
@inlinable internal func _atan(_ x: Double) -> Double { atan(x) }
@inlinable internal func _atan2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@inlinable internal func _exp(_ x: Double) -> Double { exp(x) }
@inlinable internal func _log(_ x: Double) -> Double { log(x) }
@inlinable internal func _pow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
