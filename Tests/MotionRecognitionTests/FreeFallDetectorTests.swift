// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionRecognition

final class FreeFallDetectorTests: XCTestCase {
  func testDropIsReportedWithDurationAndHeight() {
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed, noise: 0.01)
    // At rest, dropped at 1.0 s, caught at 1.45 s (a 0.99 m drop), at rest again.
    let inputs = motion.samples(
      duration: 3,
      user: { t in
        switch t {
        case 1.0..<1.45: return SIMD3(0, 0, 1)  // total ≈ 0: user acceleration cancels gravity
        case 1.45..<1.5: return SIMD3(0, 0, -2)  // the catch
        default: return .zero
        }
      })
    let events = inputs.motionEvents(detectedBy: FreeFallDetector())
    XCTAssertEqual(events.map(\.phase), [.began, .ended], "seed \(seed)")
    guard events.count == 2 else { return }
    XCTAssertEqual(events[0].startTime, 1.0, accuracy: 0.011)
    XCTAssertEqual(events[0].timestamp, 1.08, accuracy: 0.011)
    XCTAssertEqual(events[1].timestamp, 1.45, accuracy: 0.011)
    XCTAssertEqual(events[1].dropHeight, 0.5 * Units.standardGravity * 0.45 * 0.45, accuracy: 0.05)
  }

  func testBriefDipIsNotAFall() {
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed, noise: 0.01)
    let inputs = motion.samples(
      duration: 2, user: { t in (1.0..<1.04).contains(t) ? SIMD3(0, 0, 1) : .zero })
    XCTAssertTrue(inputs.motionEvents(detectedBy: FreeFallDetector()).isEmpty)
  }
}
