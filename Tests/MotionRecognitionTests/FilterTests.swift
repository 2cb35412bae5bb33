// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionRecognition

final class FilterTests: XCTestCase {
  /// Amplitude of the steady-state response of `filter` to a unit sine at `frequency` Hz, found by
  /// projecting the last whole periods onto sine and cosine.
  private func gain(
    at frequency: Double, sampleRate: Double, _ filter: (Double) -> Double
  ) -> Double {
    let periodSamples = sampleRate / frequency
    let settle = Int(40 * periodSamples)  // many time constants: transients gone
    let measure = Int((20 * periodSamples).rounded())
    var s = 0.0
    var c = 0.0
    for n in 0..<(settle + measure) {
      let phase = 2 * Double.pi * frequency * Double(n) / sampleRate
      let y = filter(Double.sin(phase))
      if n >= settle {
        s += y * Double.sin(phase)
        c += y * Double.cos(phase)
      }
    }
    return 2 * (s * s + c * c).squareRoot() / Double(measure)
  }

  // Tolerance for −3 dB: the designs place it exactly at the cut-off; 1 % leaves room for the
  // finite measurement window (20 periods, not an integer number of samples per period).
  private let halfPowerTolerance = 0.01
  /// Identities that hold exactly in real arithmetic (coefficient relations, a first sample that
  /// initialises the state, the same recursion computed twice): only a few roundings apart.
  private let roundingTolerance = 1e-12
  /// After 5000 samples (at least 25 time constants) the start-up transient is gone; what is left
  /// must be the DC gain itself, 1 for a low-pass and 0 for a high-pass. The bounds only catch a
  /// wrong gain (a high-pass that leaks DC).
  private let settledGainTolerance = 1e-9
  private let settledLeakTolerance = 1e-6
  /// The step has settled after 3 s (6 periods of the 2 Hz cut-off; the step is 0.79 long): the
  /// bounds only catch a filter that does not converge, looser for the second-order filters, whose
  /// response rings before it settles.
  private let firstOrderSettled = 1e-6
  private let secondOrderSettled = 1e-4

  func testLowPassHasUnitDCGainAndHalfPowerAtCutoff() {
    for (cutoff, rate) in [(1.0, 100.0), (5.0, 100.0), (20.0, 100.0), (2.0, 50.0)] {
      var dc = FirstOrderLowPassFilter<Double>(cutoffFrequency: cutoff, sampleRate: rate)
      dc.update(0)
      var y = 0.0
      for _ in 0..<5000 { y = dc.update(1) }
      XCTAssertEqual(y, 1, accuracy: settledGainTolerance, "DC gain at fc=\(cutoff)")
      var filter = FirstOrderLowPassFilter<Double>(cutoffFrequency: cutoff, sampleRate: rate)
      filter.update(0)
      let g = gain(at: cutoff, sampleRate: rate) { filter.update($0) }
      XCTAssertEqual(
        g, 1 / 2.0.squareRoot(), accuracy: halfPowerTolerance, "fc=\(cutoff) fs=\(rate)")
    }
  }

  func testHighPassRemovesDCAndHasHalfPowerAtCutoff() {
    for (cutoff, rate) in [(0.5, 100.0), (5.0, 100.0), (20.0, 100.0)] {
      var dc = FirstOrderHighPassFilter<Double>(cutoffFrequency: cutoff, sampleRate: rate)
      dc.update(0)
      var y = 1.0
      for _ in 0..<5000 { y = dc.update(1) }
      XCTAssertEqual(y, 0, accuracy: settledLeakTolerance, "DC leaks through at fc=\(cutoff)")
      var filter = FirstOrderHighPassFilter<Double>(cutoffFrequency: cutoff, sampleRate: rate)
      filter.update(0)
      let g = gain(at: cutoff, sampleRate: rate) { filter.update($0) }
      XCTAssertEqual(
        g, 1 / 2.0.squareRoot(), accuracy: halfPowerTolerance, "fc=\(cutoff) fs=\(rate)")
    }
  }

  func testButterworthCoefficientsAndHalfPower() {
    for (cutoff, rate) in [(1.0, 100.0), (5.0, 100.0), (30.0, 100.0)] {
      let lowCoefficients = SecondOrderButterworthFilter<Double>.Coefficients(
        kind: .lowPass, cutoffFrequency: cutoff, sampleRate: rate)
      XCTAssertEqual(lowCoefficients.dcGain, 1, accuracy: roundingTolerance)
      let highCoefficients = SecondOrderButterworthFilter<Double>.Coefficients(
        kind: .highPass, cutoffFrequency: cutoff, sampleRate: rate)
      XCTAssertEqual(highCoefficients.dcGain, 0, accuracy: roundingTolerance)

      var low = SecondOrderButterworthFilter<Double>.lowPass(
        cutoffFrequency: cutoff, sampleRate: rate)
      low.update(0)
      XCTAssertEqual(
        gain(at: cutoff, sampleRate: rate) { low.update($0) }, 1 / 2.0.squareRoot(),
        accuracy: halfPowerTolerance, "low-pass fc=\(cutoff)")
      var high = SecondOrderButterworthFilter<Double>.highPass(
        cutoffFrequency: cutoff, sampleRate: rate)
      high.update(0)
      XCTAssertEqual(
        gain(at: cutoff, sampleRate: rate) { high.update($0) }, 1 / 2.0.squareRoot(),
        accuracy: halfPowerTolerance, "high-pass fc=\(cutoff)")
      // Second order: a decade above the cut-off the low-pass is down ~40 dB (gain ≲ 0.012 ignoring
      // warping, which only makes it smaller), far below a first-order filter's ~0.1.
      if cutoff * 10 < rate / 2 {
        var steep = SecondOrderButterworthFilter<Double>.lowPass(
          cutoffFrequency: cutoff, sampleRate: rate)
        steep.update(0)
        XCTAssertLessThan(gain(at: 10 * cutoff, sampleRate: rate) { steep.update($0) }, 0.012)
      }
    }
  }

  func testStepResponsesConverge() {
    var low = FirstOrderLowPassFilter<SIMD3<Double>>(cutoffFrequency: 2, sampleRate: 100)
    var butter = SecondOrderButterworthFilter<SIMD3<Double>>.lowPass(
      cutoffFrequency: 2, sampleRate: 100)
    var high = SecondOrderButterworthFilter<SIMD3<Double>>.highPass(
      cutoffFrequency: 2, sampleRate: 100)
    let target = SIMD3<Double>(0.3, -0.7, 0.2)
    _ = (low.update(.zero), butter.update(.zero), high.update(.zero))
    var outputs: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) = (.zero, .zero, .zero)
    var overshoot = 0.0
    for _ in 0..<300 {  // 3 s = 6 periods of the cut-off; the step settles long before
      outputs = (low.update(target), butter.update(target), high.update(target))
      overshoot = max(overshoot, outputs.1.y / target.y - 1)
    }
    XCTAssertLessThan((outputs.0 - target).length, firstOrderSettled)
    XCTAssertLessThan((outputs.1 - target).length, secondOrderSettled)
    XCTAssertLessThan(outputs.2.length, secondOrderSettled)
    // A second-order Butterworth overshoots a step by about 4.3 % (the analog prototype's figure);
    // the bilinear transform and a peak seen only at 10 ms steps move it by under a point.
    let discretisedOvershootTolerance = 0.01
    XCTAssertEqual(overshoot, 0.043, accuracy: discretisedOvershootTolerance)
  }

  func testFirstSampleInitialisesWithoutTransient() {
    var low = FirstOrderLowPassFilter<Double>(cutoffFrequency: 1, sampleRate: 100)
    var butter = SecondOrderButterworthFilter<Double>.lowPass(cutoffFrequency: 1, sampleRate: 100)
    var high = FirstOrderHighPassFilter<Double>(cutoffFrequency: 1, sampleRate: 100)
    for _ in 0..<10 {
      XCTAssertEqual(low.update(-1), -1, accuracy: roundingTolerance)
      XCTAssertEqual(butter.update(-1), -1, accuracy: roundingTolerance)
      XCTAssertEqual(high.update(-1), 0, accuracy: roundingTolerance)
    }
  }

  func testVariableSamplePeriodKeepsTheCutoffInHertz() {
    // The same filter fed at 50 Hz through update(_:samplePeriod:) must match one built for 50 Hz.
    var nominal = FirstOrderLowPassFilter<Double>(cutoffFrequency: 3, sampleRate: 50)
    var retimed = FirstOrderLowPassFilter<Double>(cutoffFrequency: 3, sampleRate: 100)
    for n in 0..<200 {
      let x = Double.sin(Double(n) * 0.3)
      XCTAssertEqual(
        nominal.update(x), retimed.update(x, samplePeriod: 0.02), accuracy: roundingTolerance)
    }
  }

  func testAdaptiveLowPassSmoothsNoiseMoreAndStillFollowsSteps() {
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    var fixed = FirstOrderLowPassFilter<Double>(cutoffFrequency: 5, sampleRate: 100)
    var adaptive = FirstOrderLowPassFilter<Double>(
      cutoffFrequency: 5, sampleRate: 100, adaptive: .default)
    var fixedSquares = 0.0
    var adaptiveSquares = 0.0
    for n in 0..<2000 {
      let x = 0.005 * rng.nextGaussian()  // noise only, well under the 0.02 g noise level
      let a = fixed.update(x)
      let b = adaptive.update(x)
      if n > 100 {
        fixedSquares += a * a
        adaptiveSquares += b * b
      }
    }
    XCTAssertLessThan(adaptiveSquares, 0.5 * fixedSquares, "seed \(seed)")
    // A 1 g step is far above the change level: the adaptive filter follows at the nominal rate.
    var fixedStep = fixed
    var adaptiveStep = adaptive
    var lagFixed = 0.0
    var lagAdaptive = 0.0
    for _ in 0..<5 {
      lagFixed = 1 - fixedStep.update(1)
      lagAdaptive = 1 - adaptiveStep.update(1)
    }
    // "Follows at the nominal rate": within 5 % of the step of the fixed filter's lag after 5
    // samples, while the adaptive gain opens; settled to 0.1 % of the step after 2 s.
    let followsNominalRate = 0.05
    let settledStepTolerance = 1e-3
    XCTAssertEqual(lagAdaptive, lagFixed, accuracy: followsNominalRate)
    for _ in 0..<200 { lagAdaptive = 1 - adaptiveStep.update(1) }
    XCTAssertEqual(lagAdaptive, 0, accuracy: settledStepTolerance)
  }

  func testAdaptiveHighPassSuppressesNoiseButPassesJolts() {
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    var fixed = FirstOrderHighPassFilter<SIMD3<Double>>(cutoffFrequency: 5, sampleRate: 100)
    var adaptive = FirstOrderHighPassFilter<SIMD3<Double>>(
      cutoffFrequency: 5, sampleRate: 100, adaptive: .default)
    let gravity = SIMD3<Double>(0, 0, -1)
    var fixedNoise = 0.0
    var adaptiveNoise = 0.0
    for _ in 0..<1000 {
      let x = gravity + 0.004 * SIMD3(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian())
      fixedNoise += fixed.update(x).lengthSquared
      adaptiveNoise += adaptive.update(x).lengthSquared
    }
    XCTAssertLessThan(adaptiveNoise, 0.2 * fixedNoise, "seed \(seed)")
    let jolt = gravity + SIMD3(1, 0, 0)
    let adaptiveJolt = adaptive.update(jolt).x
    // A 1 g jolt passes as through the fixed filter, to 5 % of the jolt.
    let passesJoltTolerance = 0.05
    XCTAssertEqual(adaptiveJolt, fixed.update(jolt).x, accuracy: passesJoltTolerance)
    XCTAssertGreaterThan(adaptiveJolt, 0.5)
  }

  func testHighPassPoleFormulaMatchesClosedForm() {
    // Cross-check the two algebraic forms of the high-pass root.
    for f in [0.5, 3.0, 12.0, 30.0] {
      let c = Double.cos(2 * .pi * f / 100)
      let beta = FilterCoefficients.highPassPole(cutoffFrequency: f, sampleRate: 100)
      XCTAssertEqual((3 - 4 * c) * beta * beta + 2 * c * beta - 1, 0, accuracy: roundingTolerance)
      let alpha = FilterCoefficients.lowPassPole(cutoffFrequency: f, sampleRate: 100)
      XCTAssertEqual(alpha * alpha + (2 * c - 4) * alpha + 1, 0, accuracy: roundingTolerance)
      XCTAssert((0..<1).contains(alpha) && (0..<1).contains(beta))
    }
  }

  /// A NaN or infinite sample is skipped; taken in, it made every later output NaN.
  func testANonFiniteSampleDoesNotPoisonTheFilters() {
    for bad in [Double.nan, .infinity, -.infinity] {
      var low = FirstOrderLowPassFilter<Double>(cutoffFrequency: 1, sampleRate: 100)
      var adaptive = FirstOrderLowPassFilter<Double>(
        cutoffFrequency: 1, sampleRate: 100, adaptive: AdaptiveSmoothing())
      var high = FirstOrderHighPassFilter<Double>(cutoffFrequency: 1, sampleRate: 100)
      var butterLow = SecondOrderButterworthFilter<Double>.lowPass(
        cutoffFrequency: 1, sampleRate: 100)
      var butterHigh = SecondOrderButterworthFilter<Double>.highPass(
        cutoffFrequency: 1, sampleRate: 100)
      var vector = FirstOrderLowPassFilter<SIMD3<Double>>(cutoffFrequency: 1, sampleRate: 100)
      for i in 0..<50 {
        let input = i == 10 ? bad : Double(i % 3)
        let outputs = [
          low.update(input), adaptive.update(input), high.update(input),
          high.update(input, samplePeriod: 0.01), butterLow.update(input), butterHigh.update(input),
        ]
        let vectorOutput = vector.update(SIMD3(input, 1, -1))
        XCTAssertTrue(outputs.allSatisfy(\.isFinite), "\(bad) at \(i): \(outputs)")
        XCTAssertTrue(vectorOutput.isFinite, "\(bad) at \(i): \(vectorOutput)")
      }
    }
    // Before the first usable sample: nothing is initialised by the bad one.
    var low = FirstOrderLowPassFilter<Double>(cutoffFrequency: 1, sampleRate: 100)
    _ = low.update(.nan)
    XCTAssertNil(low.value)
    XCTAssertEqual(low.update(2), 2)
    var high = FirstOrderHighPassFilter<Double>(cutoffFrequency: 1, sampleRate: 100)
    XCTAssertEqual(high.update(.nan), 0)
    XCTAssertEqual(high.update(2), 0)
  }
}
