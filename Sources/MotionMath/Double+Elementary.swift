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
  @inlinable public static func sin(_ x: Double) -> Double { _sin(x) }
  @inlinable public static func cos(_ x: Double) -> Double { _cos(x) }
  @inlinable public static func tan(_ x: Double) -> Double { _tan(x) }
  @inlinable public static func asin(_ x: Double) -> Double { _asin(x) }
  @inlinable public static func acos(_ x: Double) -> Double { _acos(x) }
  @inlinable public static func atan(_ x: Double) -> Double { _atan(x) }
  @inlinable public static func atan2(_ y: Double, _ x: Double) -> Double { _atan2(y, x) }
  @inlinable public static func exp(_ x: Double) -> Double { _exp(x) }
  @inlinable public static func log(_ x: Double) -> Double { _log(x) }
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
