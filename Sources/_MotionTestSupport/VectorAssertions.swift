// SPDX-License-Identifier: Apache-2.0

import XCTest

/// The package's vector comparisons for tests: one per error measure, with the failure message
/// showing both vectors and the error.

/// Fails unless `actual` exists and lies within `tolerance` of `expected` in every component
/// (maximum norm): for values that are compared channel by channel (converted readings).
package func assertComponentsClose(
  _ actual: SIMD3<Double>?, _ expected: SIMD3<Double>, tolerance: Double,
  _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line
) {
  guard let actual else {
    return XCTFail("missing vector, expected \(expected). \(message())", file: file, line: line)
  }
  let difference = actual - expected
  let error = Swift.max(abs(difference.x), abs(difference.y), abs(difference.z))
  XCTAssertLessThanOrEqual(
    error, tolerance, "\(actual) vs \(expected): largest component error \(error). \(message())",
    file: file, line: line)
}

/// Fails unless `actual` exists and lies within `tolerance` of `expected` in Euclidean distance:
/// for physical vectors (gravity, field), where the error is a length.
package func assertDistanceWithin(
  _ actual: SIMD3<Double>?, _ expected: SIMD3<Double>, tolerance: Double,
  _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line
) {
  guard let actual else {
    return XCTFail("missing vector, expected \(expected). \(message())", file: file, line: line)
  }
  let difference = actual - expected
  let error = (difference * difference).sum().squareRoot()
  XCTAssertLessThanOrEqual(
    error, tolerance, "\(actual) differs from \(expected) by \(error). \(message())",
    file: file, line: line)
}
