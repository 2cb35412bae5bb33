// SPDX-License-Identifier: Apache-2.0

import XCTest
import _MotionTestSupport

@testable import MotionDetectors

/// Settings that used to make a detector hang, or go dead for good: each is now clamped to a
/// documented range where parameters become coefficients. (Reads the detectors' internals: how
/// many grid samples a gap cost, and the transition matrix.)
final class DetectorHostileParameterTests: XCTestCase {
  /// Steps a synthetic walk may gain or lose at the edges of a bout (see `StepDetectorTests`).
  let boutEdgeSteps = 2.0

  /// Every step `samples` confirm through `detector`, those still queued at the end included.
  private func count(
    _ samples: SyntheticGait.Samples, through detector: inout StepDetector
  ) -> Int {
    var count = 0
    for sample in samples {
      if detector.process(time: sample.time, acceleration: sample.acceleration) != nil {
        count += 1
      }
    }
    while detector.takeQueuedStep() != nil { count += 1 }
    return count
  }

  /// `longestInputGap` NaN, ∞ or 1e300: a 10 000 s hole in the input between two walks is still
  /// a gap, not interpolated one grid period (20 ms) at a time: the grid takes at most 10 s × 50
  /// Hz + 1 samples across it (the clamp), where it took 500 000 (and a 1e9 s hole 5e10, hours).
  /// The walk after it counts its 40 steps (within a bout's edge steps).
  func testAnUnboundedInputGapStillBoundsTheGrid() {
    let seed = testSeed()
    let gridSamplesAcrossTheClampedGap = 10 * 50 + 1
    for gap in [Double.nan, .infinity, 1e300] {
      var random = SplitMix64(seed: seed)
      var parameters = StepDetector.Parameters()
      parameters.longestInputGap = gap
      var detector = StepDetector(parameters: parameters)
      _ = count(SyntheticGait.walk(cadence: 2, seconds: 20, using: &random), through: &detector)
      let before = detector.state.gridIndex
      let after = SyntheticGait.walk(cadence: 2, seconds: 20, start: 10_020, using: &random)
      _ = detector.process(time: after[0].time, acceleration: after[0].acceleration)
      XCTAssertLessThanOrEqual(
        detector.state.gridIndex - before, gridSamplesAcrossTheClampedGap, "gap \(gap)")
      let steps = count(Array(after.dropFirst()), through: &detector)
      XCTAssertEqual(Double(steps), 40, accuracy: boutEdgeSteps, "gap \(gap), seed \(seed)")
    }
  }

  /// `implausibleAcceleration` ∞, 1e300 or −1 (once "off"): one sample of 1e154 g in a walk
  /// is left out (the setting is at most 1000 g), so the 60 s walk after it counts its 120 steps
  /// (within a bout's edge steps). Before, its square overflowed: the energy and autocorrelation
  /// became ∞ and NaN and no step was ever counted again.
  func testAnUnboundedAccelerationLimitCannotPoisonTheState() {
    let seed = testSeed()
    for limit in [Double.infinity, 1e300, -1] {
      var random = SplitMix64(seed: seed)
      var parameters = StepDetector.Parameters()
      parameters.implausibleAcceleration = limit
      var detector = StepDetector(parameters: parameters)
      let first = count(
        SyntheticGait.walk(cadence: 2, seconds: 20, using: &random), through: &detector)
      XCTAssertEqual(Double(first), 40, accuracy: boutEdgeSteps, "limit \(limit), seed \(seed)")
      _ = detector.process(time: 20.001, acceleration: SIMD3(1e154, 0, 0))
      XCTAssertEqual(detector.skippedSamples, 1, "limit \(limit)")
      let second = count(
        SyntheticGait.walk(cadence: 2, seconds: 60, start: 20.01, using: &random),
        through: &detector)
      XCTAssertEqual(Double(second), 120, accuracy: boutEdgeSteps, "limit \(limit), seed \(seed)")
      XCTAssertTrue(detector.state.energy.isFinite, "limit \(limit)")
    }
  }

  /// Every row of the activity filter's transition matrix is a probability distribution
  /// (entries in 0...1, sum 1 to 1e-12) for any vehicle confirmation time: the defaults, 2 s
  /// and 0 s (an unconfirmed stage's stay was 0.8625 − 4 / max(t, 1), negative under 4.64 s),
  /// NaN and ∞; and for other settings out of range.
  func testTransitionsAreDistributionsForAnySetting() {
    typealias Parameters = ActivityClassifier.Parameters
    var settings: [(String, Parameters)] = [("defaults", Parameters())]
    for time in [2, 0, 4.6, .nan, .infinity, -.infinity] {
      var parameters = Parameters()
      parameters.vehicleConfirmationTime = time
      settings.append(("vehicleConfirmationTime \(time)", parameters))
    }
    for stay in [-1, 2, Double.nan] {
      var parameters = Parameters()
      parameters.stayProbability = stay
      parameters.unconfirmedVehicleToStationary = 2
      parameters.vehicleStopChange = .nan
      settings.append(("stayProbability \(stay) and others", parameters))
    }
    let n = ActivityClassifier.stateCount
    for (name, parameters) in settings {
      let t = ActivityClassifier.transitions(parameters)
      for from in 0..<n {
        let row = t[(from * n)..<(from * n + n)]
        XCTAssertEqual(row.reduce(0, +), 1, accuracy: 1e-12, "\(name), row \(from)")
        XCTAssertTrue(
          row.allSatisfy { $0 >= 0 && $0 <= 1 }, "\(name), row \(from): \(Array(row))")
      }
    }
    // With the defaults nothing is clamped: a stage stays with 0.8625 − 4 / 20 (the rest of the
    // row is 0.1 back to rest and 3 × 0.0125 out on foot or by bicycle).
    let stage = ActivityClassifier.firstUnconfirmedStage
    XCTAssertEqual(
      ActivityClassifier.transitions(Parameters())[stage * n + stage], 0.6625, accuracy: 1e-12)
    // At 2 s the stage lasts one window: it stays with probability 0.
    var quick = Parameters()
    quick.vehicleConfirmationTime = 2
    XCTAssertEqual(ActivityClassifier.transitions(quick)[stage * n + stage], 0, accuracy: 1e-12)
  }
}
