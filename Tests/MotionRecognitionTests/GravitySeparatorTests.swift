// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest

@testable import MotionRecognition

final class GravitySeparatorTests: XCTestCase {
  /// One infinite reading (an app can build any ``MotionInput``) must not make the estimate
  /// infinite and then NaN for good.
  func testANonFiniteReadingDoesNotPoisonTheEstimate() {
    var separator = GravitySeparator()
    let down = SIMD3<Double>(0, 0, -1)
    for i in 0..<10 {
      _ = separator.separate(MotionInput(timestamp: Double(i) / 100, acceleration: down))
    }
    let skipped = separator.separate(
      MotionInput(timestamp: 0.1, acceleration: SIMD3(.infinity, 0, -1)))
    XCTAssertEqual(skipped.gravity, down)
    XCTAssertEqual(skipped.user, .zero)
    let carried = separator.separate(
      MotionInput(timestamp: 0.11, gravity: SIMD3(.nan, 0, -1), userAcceleration: .zero))
    XCTAssertEqual(carried.user, .zero)
    for i in 12..<100 {
      let (gravity, user) = separator.separate(
        MotionInput(timestamp: Double(i) / 100, acceleration: down))
      XCTAssertTrue(gravity.isFinite && user.isFinite, "\(gravity) \(user) at sample \(i)")
    }
    let gravity = separator.gravity ?? SIMD3(repeating: .nan)
    XCTAssertEqual((gravity - down).length, 0, accuracy: 1e-12)
  }
}
