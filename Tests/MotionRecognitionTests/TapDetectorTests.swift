// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionRecognition

final class TapDetectorTests: XCTestCase {
  /// A knock: the hand moves the device towards the palm at a gentle 0.3 g, then the palm stops it
  /// within 20 ms. `push` is the kinematic direction the palm pushes the device (away from the
  /// struck side); Core Motion's sign reports the negation.
  private func knock(
    _ t: Double, at impact: Double, push: SIMD3<Double>, peak: Double = 2.5
  ) -> SIMD3<Double> {
    let approach = lobe(t, start: impact - 0.25, width: 0.25, amplitude: 0.3)  // towards the palm
    let hit = lobe(t, start: impact - 0.01, width: 0.02, amplitude: peak)
    return -(hit - approach) * push
  }

  func testKnocksReportAxisSignAndStruckSide() {
    let cases: [(SIMD3<Double>, TapDetector.Axis, Int, TapDetector.Side)] = [
      (SIMD3(1, 0, 0), .x, -1, .left),  // left edge knocked into the palm: pushed towards +x
      (SIMD3(-1, 0, 0), .x, 1, .right),
      (SIMD3(0, 1, 0), .y, -1, .bottom),
      (SIMD3(0, 0, -1), .z, 1, .front),
    ]
    for deviceMotion in [false, true] {
      for (push, axis, sign, side) in cases {
        let seed = testSeed()
        var motion = SyntheticMotion(seed: seed)
        let impacts = [1.0, 2.0, 3.5]
        let inputs = motion.samples(
          duration: 4.5, gravity: { _ in SIMD3(0, -1, 0) },
          user: { t in impacts.reduce(.zero) { $0 + self.knock(t, at: $1, push: push) } },
          deviceMotion: deviceMotion)
        let taps = inputs.motionEvents(detectedBy: TapDetector())
        XCTAssertEqual(taps.count, impacts.count, "push \(push), seed \(seed)")
        for (tap, impact) in zip(taps, impacts) {
          XCTAssertEqual(tap.timestamp, impact, accuracy: 0.015)
          XCTAssertEqual(tap.axis, axis)
          XCTAssertEqual(tap.sign, sign)
          XCTAssertEqual(tap.struckSide, side)
        }
      }
    }
  }

  func testShakesAndMovesAreNotTaps() {
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed)
    let inputs = motion.samples(
      duration: 4,
      user: { t in
        // 1.5 g shake lobes last ~80 ms above half the threshold; a sharp move peaks at 0.6 g.
        let shake = t < 2 ? SIMD3(1.5 * Double.sin(2 * .pi * 5 * t), 0, 0) : .zero
        return shake
          + sharpMove(
            t, start: 2.5, direction: SIMD3(0, 1, 0), startPeak: 0.6, startWidth: 0.2,
            stopWidth: 0.2)
      })
    XCTAssertTrue(inputs.motionEvents(detectedBy: TapDetector()).isEmpty, "seed \(seed)")
  }

  func testAxisFilterAndRateLimit() {
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed)
    let impacts = stride(from: 0.5, to: 3.0, by: 0.3).map { $0 }
    let inputs = motion.samples(
      duration: 3.2,
      user: { t in
        impacts.reduce(.zero) { $0 + self.knock(t, at: $1, push: SIMD3(1, 0, 0)) }
      })
    XCTAssertEqual(
      inputs.motionEvents(detectedBy: TapDetector()).count, impacts.count, "seed \(seed)")
    let yOnly = TapDetector(parameters: .init(axes: [.y]))
    XCTAssertTrue(inputs.motionEvents(detectedBy: yOnly).isEmpty)
    // At most once per second: impacts at 0.5, 1.7 (first ≥ 1.5), 2.9.
    let limited = inputs.motionEvents(detectedBy: TapDetector().rateLimited(minimumInterval: 1))
    XCTAssertEqual(limited.count, 3)
    if limited.count == 3 {
      for (tap, expected) in zip(limited, [0.5, 1.7, 2.9]) {
        XCTAssertEqual(tap.timestamp, expected, accuracy: 0.015)
      }
    }
  }

  /// A clock that restarts lower (a new timeline, e.g. a replay restarted by the daemon) must not
  /// leave the detector refusing knocks until the new clock passes the old one's last tap.
  func testAKnockAfterTheClockRestartsLowerIsDetected() {
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed)
    let push = SIMD3<Double>(1, 0, 0)
    let before = motion.samples(
      from: 99, duration: 2, user: { t in self.knock(t, at: 100, push: push) })
    let after = motion.samples(
      from: 0, duration: 2, user: { t in self.knock(t, at: 1, push: push) })
    let taps = (before + after).motionEvents(detectedBy: TapDetector())
    XCTAssertEqual(taps.count, 2, "seed \(seed)")
    guard taps.count == 2 else { return }
    XCTAssertEqual(taps[0].timestamp, 100, accuracy: 0.015)
    XCTAssertEqual(taps[1].timestamp, 1, accuracy: 0.015)
    XCTAssertEqual(taps[1].struckSide, .left)
  }
}
