// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionRecognition

final class FacingDetectorTests: XCTestCase {
  private let degree = Units.radiansPerDegree

  func testTurningAnUprightDeviceAroundWithAttitude() {
    // Upright portrait (pitch +90°), spun about the vertical: 0° → 180° (1–2 s), held, back to 0°
    // (4–5 s); then wobbled around 90° (6–9 s), which must not flip anything.
    func yaw(_ t: Double) -> Double {
      switch t {
      case ..<1: return 0
      case ..<2: return .pi * (t - 1)
      case ..<4: return .pi
      case ..<5: return .pi * (5 - t)
      case ..<6: return 0
      default: return .pi / 2 + 25 * degree * Double.sin(2 * .pi * (t - 6))
      }
    }
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed)
    let upright = AttitudeAngles(roll: 0, pitch: .pi / 2, yaw: 0).quaternion
    let inputs = motion.samples(
      duration: 9, gravity: { _ in SIMD3(0, -1, 0) },
      attitude: { t in Quaternion.aboutZ(yaw(t)) * upright }, deviceMotion: true)
    let events = inputs.motionEvents(detectedBy: FacingDetector())
    XCTAssertEqual(events.map(\.side), [.back, .front], "seed \(seed)")
    guard events.count == 2 else { return }
    // Past 120° at t = 1 + 120/180 s, plus 0.05 s settling; below 60° at t = 5 − 60/180, plus 0.05.
    XCTAssertEqual(events[0].timestamp, 1 + 2.0 / 3 + 0.05, accuracy: 0.02)
    XCTAssertEqual(events[1].timestamp, 5 - 1.0 / 3 + 0.05, accuracy: 0.02)
  }

  func testTurningOverWithGravityOnly() {
    // Face up, turned over about the y axis to face down over 1 s, then back.
    func angle(_ t: Double) -> Double { min(max(t - 1, 0), 1) * .pi - min(max(t - 3, 0), 1) * .pi }
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed)
    let inputs = motion.samples(
      duration: 5,
      gravity: { t in
        SIMD3(Double.sin(angle(t)), 0, -Double.cos(angle(t)))
      })
    let events = inputs.motionEvents(detectedBy: FacingDetector())
    XCTAssertEqual(events.map(\.side), [.back, .front], "seed \(seed)")
  }

  func testExplicitReference() {
    var detector = FacingDetector()
    detector.setReference(.gravity(SIMD3(0, 0, 1)))  // face down is "front"
    var events: [FacingDetector.Event] = []
    for i in 0..<20 {
      if let e = detector.update(
        MotionInput(timestamp: Double(i) / 100, acceleration: SIMD3(0, 0, -1)))
      {
        events.append(e)
      }
    }
    XCTAssertEqual(events.map(\.side), [.back])
    XCTAssertEqual(detector.angle, .pi, accuracy: 1e-9)
  }
}
