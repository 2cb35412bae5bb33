// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// Input crafted to hang or trap the replay must end cleanly.
final class HostileInputTests: XCTestCase {
  /// A 10¹⁸ s gap between two stretches of samples: slicing the virtual clock 10 s at a time never
  /// crossed it (at 10¹⁸, `horizon + 10 == horizon`); the replay now jumps it. No timing assertion:
  /// the test would hang without the fix.
  func testReplayJumpsAnAbsurdTimeGap() throws {
    for gap in [1e9, 1e18] {
      let before = Synthetic.still(Synthetic.faceUp, count: 200, start: 0)
      let after = Synthetic.still(Synthetic.faceUp, count: 200, start: gap)
      let stream = ArraySampleStream(
        before + after,
        descriptor: StreamDescriptor(name: "gap", sensors: .nineAxis, nominalSampleRate: 100))
      var count = 0
      try DeviceMotionReplay.run(stream) { _ in count += 1 }
      XCTAssertGreaterThan(count, 0, "gap \(gap) s: updates before the gap at least")
    }
  }

  /// Timestamps 10⁻²⁰ s apart and a header rate of 10²⁰ Hz used to trap in the low-pass filter's
  /// warm-up (`Int` of 10²⁰); the replay must end, with or without updates.
  func testReplaySurvivesAbsurdSampleRates() throws {
    let samples = (0..<300).map { i in
      Synthetic.sample(at: Double(i) * 1e-20, earthFromSensor: Synthetic.faceUp)
    }
    for rate in [1e20, 100] {
      let stream = ArraySampleStream(
        samples,
        descriptor: StreamDescriptor(name: "fast", sensors: .nineAxis, nominalSampleRate: rate))
      try DeviceMotionReplay.run(stream) { _ in }
    }
  }

  /// Samples the estimator refuses (a gyroscope at 150 rad/s, a repeated timestamp) are counted in
  /// the summary, real time and offline, instead of vanishing (attack A, finding 9).
  func testReplayCountsTheSamplesTheEstimatorRefuses() throws {
    var samples = Synthetic.still(Synthetic.faceUp, count: 100, start: 0)
    samples[10].gyroscope = SIMD3(150, 0, 0)
    samples[20].gyroscope = SIMD3(0, 1e300, 0)
    samples[31].timestamp = samples[30].timestamp
    let descriptor = StreamDescriptor(name: "refused", sensors: .nineAxis, nominalSampleRate: 100)
    let realTime = try DeviceMotionReplay.run(ArraySampleStream(samples, descriptor: descriptor)) {
      _ in
    }
    XCTAssertEqual(realTime.fusionInputCount, 100)
    XCTAssertEqual(realTime.refusedSampleCount, 3)
    XCTAssertEqual(realTime.deviceMotionCount, 97)
    // Offline keeps a finite 150 rad/s (its own policy) but not 1e300 (beyond single precision)
    // nor the repeated timestamp.
    let offline = try DeviceMotionReplay.runOffline(
      ArraySampleStream(samples, descriptor: descriptor)
    ) { _ in }
    XCTAssertEqual(offline.fusionInputCount, 100)
    XCTAssertEqual(offline.refusedSampleCount, 2)
    XCTAssertEqual(offline.deviceMotionCount, 98)
  }
}
