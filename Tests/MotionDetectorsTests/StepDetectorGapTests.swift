// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import XCTest
import _MotionTestSupport

/// Samples lost inside a walk: a radio link that drops packets (IPOL's trial 7-3 lost 0.65 s with a
/// heel strike in it), a phone stream over Wi-Fi, a sensor FIFO that overflowed. A short gap is
/// interpolated across, which flattens any impact inside it; the detector counts the steps the
/// bout's rhythm puts there, and nothing where the data show no walking.
final class StepDetectorGapTests: XCTestCase {
  /// Every step of `samples`, those still queued at the end included, and how many were bridged.
  static func count(_ samples: SyntheticGait.Samples) -> (steps: [Double], bridged: Int) {
    var detector = StepDetector()
    var steps: [Double] = []
    for sample in samples {
      if let step = detector.process(time: sample.time, acceleration: sample.acceleration) {
        steps.append(step)
      }
    }
    while let step = detector.takeQueuedStep() { steps.append(step) }
    return (steps, detector.bridgedSteps)
  }

  /// The same walk with holes of 0.3–0.8 s every 6–8 s: with bridging the count stays within a
  /// bout's edge steps of the truth, and the bridged steps fall inside the holes (± half a step).
  /// Without it each hole that hides a heel strike loses it.
  func testStepsHiddenInShortGapsAreCounted() {
    let seed = testSeed()
    var random = SplitMix64(seed: seed)
    let cadence = 1.8
    let walk = SyntheticGait.walk(cadence: cadence, seconds: 60, using: &random)
    var holes: [ClosedRange<Double>] = []
    var start = 5.0
    while start < 54 {
      let length = Double.random(in: 0.3...0.8, using: &random)
      holes.append(start...(start + length))
      start += Double.random(in: 6...8, using: &random)
    }
    let samples = walk.filter { sample in !holes.contains { $0.contains(sample.time) } }

    let (steps, bridged) = Self.count(samples)
    XCTAssertEqual(Double(steps.count), cadence * 60, accuracy: 2, "seed \(seed)")
    XCTAssertGreaterThanOrEqual(bridged, holes.count / 2, "seed \(seed)")

    var withoutBridging = StepDetector.Parameters()
    withoutBridging.shortestBridgedGap = .infinity
    let unbridged = SyntheticGait.detect(samples, parameters: withoutBridging).count
    XCTAssertGreaterThanOrEqual(
      steps.count - unbridged, bridged - 1,
      "bridging is what recovers them: \(unbridged) steps without it, seed \(seed)")

    // Every step is near a heel strike of the walk, and so is every bridged one: a step within
    // half a period of a hole is one the rhythm put there.
    let period = 1 / cadence
    for step in steps
    where holes.contains(where: { step > $0.lowerBound - 0.1 && step < $0.upperBound + 0.1 }) {
      XCTAssertTrue(
        holes.contains { step >= $0.lowerBound - period && step <= $0.upperBound + period },
        "step at \(step) s, seed \(seed)")
    }
  }

  /// A hole at the end of a walk, followed by rest: nothing is counted in it or after it.
  func testAGapFollowedByRestCountsNothing() {
    let seed = testSeed()
    var random = SplitMix64(seed: seed)
    var samples = SyntheticGait.walk(cadence: 2, seconds: 20, using: &random)
    samples += SyntheticGait.rest(seconds: 10, start: 20.6, using: &random)
    let (steps, bridged) = Self.count(samples)
    XCTAssertEqual(bridged, 0, "seed \(seed)")
    XCTAssertFalse(steps.contains { $0 > 20.1 }, "a step in the gap or at rest, seed \(seed)")
  }

  /// A pause with data in it (the walker stopped for a second) is not a gap: the detector sees
  /// that nobody stepped, and counts nothing there.
  func testAPauseWithDataIsNotBridged() {
    let seed = testSeed()
    var random = SplitMix64(seed: seed)
    var samples = SyntheticGait.walk(cadence: 2, seconds: 20, using: &random)
    samples += SyntheticGait.rest(seconds: 1, start: 20, using: &random)
    samples += SyntheticGait.walk(cadence: 2, seconds: 20, start: 21, using: &random)
    let (steps, bridged) = Self.count(samples)
    XCTAssertEqual(bridged, 0, "seed \(seed)")
    XCTAssertFalse(steps.contains { $0 > 20.2 && $0 < 20.8 }, "a step in the pause, seed \(seed)")
  }

  /// Hostile gap parameters: no trap, no hang, no more than one interval's worth of steps.
  func testHostileGapParameters() {
    let seed = testSeed()
    for (gap, longest) in [(-Double.infinity, Int.max), (.nan, Int.min), (0, 1_000_000)] {
      var random = SplitMix64(seed: seed)
      var parameters = StepDetector.Parameters()
      parameters.shortestBridgedGap = gap
      parameters.longestBridgedInterval = longest
      var samples = SyntheticGait.walk(cadence: 2, seconds: 20, using: &random)
      samples.removeAll { $0.time > 10 && $0.time < 12 }
      let count = SyntheticGait.detect(samples, parameters: parameters).count
      XCTAssertLessThanOrEqual(count, 45, "gap \(gap), longest \(longest), seed \(seed)")
    }
  }
}
