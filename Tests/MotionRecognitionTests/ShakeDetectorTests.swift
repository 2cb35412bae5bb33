// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionRecognition

final class ShakeDetectorTests: XCTestCase {
  /// A side-to-side shake at `frequency` Hz and `amplitude` g between `start` and `end` seconds.
  private func shake(
    _ t: Double, start: Double, end: Double, frequency: Double = 5, amplitude: Double = 1.5
  )
    -> SIMD3<Double>
  {
    guard t >= start, t < end else { return .zero }
    return SIMD3(amplitude * Double.sin(2 * .pi * frequency * (t - start)), 0, 0)
  }

  func testShakeBeginsAndEnds() {
    for deviceMotion in [false, true] {
      let seed = testSeed()
      var motion = SyntheticMotion(seed: seed)
      let inputs = motion.samples(
        duration: 4, user: { self.shake($0, start: 1, end: 2) }, deviceMotion: deviceMotion)
      let events = inputs.motionEvents(detectedBy: ShakeDetector())
      XCTAssertEqual(
        events.map(\.phase), [.began, .ended], "seed \(seed), deviceMotion \(deviceMotion)")
      guard events.count == 2 else { continue }
      // Three reversals at 5 Hz take 0.3–0.4 s (lobes every 0.1 s, each registered when it fades).
      XCTAssertEqual(events[0].timestamp, 1.35, accuracy: 0.1)
      // Ends once 0.4 s have passed without a jolt.
      XCTAssertEqual(events[1].timestamp, 2.4, accuracy: 0.1)
    }
  }

  func testShakeThatGoesOnTooLongIsCancelled() {
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed)
    let inputs = motion.samples(
      duration: 8, user: { self.shake($0, start: 1, end: 6, frequency: 4) })
    let events = inputs.motionEvents(detectedBy: ShakeDetector())
    XCTAssertEqual(events.map(\.phase), [.began, .cancelled], "seed \(seed)")
    if events.count == 2 {
      XCTAssertEqual(events[1].timestamp - events[0].timestamp, 3, accuracy: 0.02)
    }
  }

  func testTapsTiltsAndGentleMovesAreNotShakes() {
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed)
    let inputs = motion.samples(
      duration: 10,
      gravity: { t in
        // A slow tilt back and forth (0.3 Hz, ±40°).
        let angle = 40 * Units.radiansPerDegree * Double.sin(2 * .pi * 0.3 * t)
        return SIMD3(Double.sin(angle), 0, -Double.cos(angle))
      },
      user: { t in
        // Sharp 20 ms knocks every second and a gentle 0.4 g wobble between 6 s and 8 s.
        let knock = SIMD3<Double>(
          -3 * lobe(t.truncatingRemainder(dividingBy: 1), start: 0.5, width: 0.02, amplitude: 1), 0,
          0)
        return knock + self.shake(t, start: 6, end: 8, amplitude: 0.4)
      })
    XCTAssertTrue(inputs.motionEvents(detectedBy: ShakeDetector()).isEmpty, "seed \(seed)")
  }

  /// A clock that restarts lower (a new timeline) in the middle of a shake must not keep the shake
  /// going until the new clock passes the old one: quiet on the new clock ends it.
  func testAShakeEndsPromptlyWhenTheClockRestartsLower() {
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed)
    let shaking = motion.samples(
      from: 99, duration: 1.1, user: { self.shake($0, start: 99.2, end: 101) })
    let quiet = motion.samples(from: 0, duration: 2)
    var detector = ShakeDetector()
    var events: [ShakeDetector.Event] = []
    for input in shaking {
      if let event = detector.update(input) { events.append(event) }
    }
    XCTAssertTrue(detector.isShaking, "seed \(seed)")
    for input in quiet {
      if let event = detector.update(input) { events.append(event) }
    }
    XCTAssertEqual(events.map(\.phase), [.began, .ended], "seed \(seed)")
    XCTAssertFalse(detector.isShaking)
    guard events.count == 2 else { return }
    // Ends once the quiet time (0.4 s) has passed on the new clock.
    XCTAssertEqual(events[1].timestamp, 0.4, accuracy: 0.05)
  }

  /// One infinite reading used to turn the gravity estimate infinite and then NaN for good, so no
  /// shake was ever recognised again.
  func testAShakeAfterANonFiniteReadingIsRecognised() {
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed)
    let rest = motion.samples(from: 0, duration: 1)
    let bad = MotionInput(timestamp: 1, acceleration: SIMD3(0, .infinity, -1))
    let shaking = motion.samples(
      from: 1.01, duration: 2, user: { self.shake($0, start: 1.5, end: 2.5, frequency: 4) })
    let events = (rest + [bad] + shaking).motionEvents(detectedBy: ShakeDetector())
    XCTAssertEqual(events.map(\.phase), [.began, .ended], "seed \(seed)")
  }
}
