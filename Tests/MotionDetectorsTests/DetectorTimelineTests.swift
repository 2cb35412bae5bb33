// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import XCTest
import _MotionTestSupport

/// Time that jumps back: one sample stamped far in the future (a corrupt timestamp), or a clock
/// that restarts lower (a new session, a time base reset). Every later sample is then "earlier"
/// than the latest one; the detectors used to skip or ignore all of them for good. A sample
/// earlier by more than a small tolerance now starts a new timeline, and the counts go on.
final class DetectorTimelineTests: XCTestCase {
  /// Steps a synthetic walk may gain or lose at the edges of a bout (see `StepDetectorTests`);
  /// two bouts allow one more.
  let boutEdgeSteps = 2.0
  let twoBoutEdgeSteps = 3.0

  /// Every step of `samples` through `detector`, those still queued at the end included.
  private func steps(
    _ samples: SyntheticGait.Samples, through detector: inout StepDetector
  ) -> [Double] {
    var steps: [Double] = []
    for sample in samples {
      if let step = detector.process(time: sample.time, acceleration: sample.acceleration) {
        steps.append(step)
      }
    }
    while let step = detector.takeQueuedStep() { steps.append(step) }
    return steps
  }

  /// 20 s of walking at 2 steps/s, one sample at t = 1e9, 20 s more from t = 20: about 80 steps
  /// (40 + 40, within two bouts' edge steps), 40 of them in the second walk (within one bout's).
  /// Before, every sample after the 1e9 one was skipped and the second walk counted 0.
  func testOneFutureSampleCostsAtMostABout() {
    let seed = testSeed()
    var random = SplitMix64(seed: seed)
    var detector = StepDetector()
    var all = steps(SyntheticGait.walk(cadence: 2, seconds: 20, using: &random), through: &detector)
    _ = detector.process(time: 1e9, acceleration: SIMD3(0, 0, -1))
    let second = steps(
      SyntheticGait.walk(cadence: 2, seconds: 20, start: 20, using: &random), through: &detector)
    all += second
    XCTAssertEqual(Double(all.count), 80, accuracy: twoBoutEdgeSteps, "seed \(seed)")
    XCTAssertEqual(Double(second.count), 40, accuracy: boutEdgeSteps, "seed \(seed)")
    XCTAssertFalse(all.contains { $0 > 40 }, "a step on the bogus sample's timeline, seed \(seed)")
    XCTAssertEqual(detector.skippedSamples, 0, "seed \(seed)")
  }

  /// A walk at t = 1000…1020, then the clock restarts and a walk at t = 0…20: both count about
  /// 40 steps (each within a bout's edge steps). Before, the second counted 0.
  func testAClockThatRestartsLowerCountsBothWalks() {
    let seed = testSeed()
    var random = SplitMix64(seed: seed)
    var detector = StepDetector()
    let first = steps(
      SyntheticGait.walk(cadence: 2, seconds: 20, start: 1000, using: &random), through: &detector)
    let second = steps(
      SyntheticGait.walk(cadence: 2, seconds: 20, start: 0, using: &random), through: &detector)
    XCTAssertEqual(Double(first.count), 40, accuracy: boutEdgeSteps, "seed \(seed)")
    XCTAssertEqual(Double(second.count), 40, accuracy: boutEdgeSteps, "seed \(seed)")
    XCTAssertTrue(second.allSatisfy { $0 >= 0 && $0 <= 20 }, "seed \(seed)")
  }

  /// A sample a little earlier than the previous one (by less than `longestInputGap`, 1 s) is still
  /// out-of-order jitter: skipped, and the walk goes on (no restart, so no bout is lost).
  func testSlightlyEarlierSamplesAreStillSkipped() {
    let seed = testSeed()
    var random = SplitMix64(seed: seed)
    var samples = SyntheticGait.walk(cadence: 2, seconds: 30, using: &random)
    // Every 5 s, one sample half a second late in the stream.
    for index in stride(from: 500, to: samples.count, by: 500) {
      samples[index].time -= 0.5
    }
    var detector = StepDetector()
    let count = steps(samples, through: &detector).count
    XCTAssertEqual(detector.skippedSamples, 5, "seed \(seed)")
    XCTAssertEqual(Double(count), 60, accuracy: boutEdgeSteps, "seed \(seed)")
  }

  /// One reading at t = 1e9, then the readings go on from t = 2: the relative altitude follows
  /// them again. 0.1 kPa below 100 kPa is h(99.9) − h(100) = 44 330.77 m × ((100 / 101.325)^0.190263
  /// − (99.9 / 101.325)^0.190263) ≈ 8.417 m; the filter restarts its smoothing on the new timeline,
  /// so it matches to 1 mm (far below a barometer's 8 cm resolution). Before, every reading after
  /// the 1e9 one had a period of 0 and the altitude stayed at 0.
  func testRelativeAltitudeFollowsAfterAFutureTimestamp() {
    let belowBarometerResolution = 1e-3  // m
    let expected =
      BarometricAltitude.height(atPressure: 99.9) - BarometricAltitude.height(atPressure: 100)
    XCTAssertEqual(expected, 8.417, accuracy: belowBarometerResolution)
    var filter = RelativeAltitudeFilter()
    XCTAssertEqual(filter.process(time: 0, pressure: 100), 0)
    XCTAssertEqual(filter.process(time: 1, pressure: 100) ?? .nan, 0, accuracy: 1e-9)
    XCTAssertEqual(filter.process(time: 1e9, pressure: 100) ?? .nan, 0, accuracy: 1e-9)
    for time in 2...5 {
      let altitude = filter.process(time: Double(time), pressure: 99.9) ?? .nan
      XCTAssertEqual(altitude, expected, accuracy: belowBarometerResolution, "t = \(time) s")
    }
    // And a clock that restarts lower: readings at 1000…1005 s at 99.9 kPa, then at 0… at 99.8.
    var restarted = RelativeAltitudeFilter()
    for time in 1000...1005 { _ = restarted.process(time: Double(time), pressure: 99.9) }
    let lower =
      BarometricAltitude.height(atPressure: 99.8) - BarometricAltitude.height(atPressure: 99.9)
    for time in 0...3 {
      let altitude = restarted.process(time: Double(time), pressure: 99.8) ?? .nan
      XCTAssertEqual(altitude, lower, accuracy: belowBarometerResolution, "t = \(time) s")
    }
  }

  /// Readings out of order by less than a second are still smoothed by nothing (their period is
  /// 0): the altitude stays where the latest reading put it.
  func testRelativeAltitudeIgnoresSlightlyEarlierReadings() {
    var parameters = RelativeAltitudeFilter.Parameters()
    parameters.smoothingTimeConstant = 1
    var filter = RelativeAltitudeFilter(parameters: parameters)
    _ = filter.process(time: 0, pressure: 100)
    let latest = filter.process(time: 10, pressure: 99.9) ?? .nan
    XCTAssertEqual(filter.process(time: 9.5, pressure: 95) ?? .nan, latest, accuracy: 1e-12)
  }
}
