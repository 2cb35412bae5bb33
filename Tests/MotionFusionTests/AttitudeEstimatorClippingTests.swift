// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import XCTest
import _MotionTestSupport

/// A phone accelerometer with a ±8 g range clips the foot-strike peaks of running. Clipping
/// shortens only the axes that reach the range, so the clipped vector also points the wrong way;
/// averaged by the inclination filter, that tilts the attitude. Clipped samples must be left out
/// of the accelerometer correction (gyroscope only for that step) and counted.
final class AttitudeEstimatorClippingTests: XCTestCase {
  private let degree = Units.radiansPerDegree
  private let range = 8 * Units.standardGravity

  /// A runner's vertical specific force: free flight (0 g) between foot strikes, half-sine
  /// stance peaks of 12 g lasting 4.7 % … 13 % of a 0.37 s stride, scaled so the stride mean is
  /// exactly 1 g (the body neither rises nor sinks on average). Earth frame (z up), m/s².
  private func runningAcceleration(_ t: Double) -> SIMD3<Double> {
    runningAcceleration(t, peak: 12)
  }

  /// The same stride with a stance peak of `peak` g.
  private func runningAcceleration(_ t: Double, peak: Double) -> SIMD3<Double> {
    let stride = 0.37
    let duty = Double.pi / (2 * peak)
    let phase = t.truncatingRemainder(dividingBy: stride) / stride
    let load = phase < duty ? peak * Double.sin(Double.pi * phase / duty) : 0
    return SIMD3(0, 0, (load - 1) * Units.standardGravity)
  }

  /// The device is tilted 20° about x (the sensor z axis takes most of the impact, the y axis
  /// a third of it), as a phone strapped to the upper arm or held in a pocket: the z axis clips.
  private let truth = Quaternion(angle: 20 * Units.radiansPerDegree, axis: SIMD3(1, 0, 0))

  private struct Run {
    /// RMS inclination error over the last 40 s, degrees.
    var inclinationError: Double
    var clippedCount: Int
    var diagnostics: FusionDiagnostics
    /// How many clipped readings had been fed when the rail was learned (nil: never).
    var clippedReadingsBeforeRail: Int?
    var learnedRail: Double?
    /// The 6D attitude after every sample.
    var attitudes: [Quaternion]
  }

  /// Runs 60 s of running at 100 Hz through an estimator whose accelerometer range is
  /// `declaredRange` (m/s²), with the readings clipped at ±8 g when `clip` is set.
  /// `learnRail` sets ``AttitudeEstimator/Parameters/learnsAccelerometerRail``; `acceleration`
  /// replaces the 12 g running profile.
  private func run(
    declaredRange: Double, clip: Bool, seed: UInt64, learnRail: Bool = true,
    acceleration: ((Double) -> SIMD3<Double>)? = nil
  ) -> Run {
    var imu = SyntheticIMU()
    imu.accelerometerNoise = 0.05
    imu.gyroscopeNoise = 0.002
    imu.magnetometerNoise = 0.2
    imu.rng = SplitMix64(seed: seed)
    let samples = imu.samples(
      duration: 60, rate: 100, attitude: { [truth] _ in truth },
      acceleration: acceleration ?? { self.runningAcceleration($0) })
    var parameters = AttitudeEstimator.Parameters.default
    parameters.accelerometerRange = declaredRange
    parameters.learnsAccelerometerRail = learnRail
    var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: 0.01)
    let up = SIMD3<Double>(0, 0, 1)
    let trueUp = truth.conjugate.act(on: up)
    var squaredSum = 0.0
    var count = 0
    var clipped = 0
    var clippedReadingsBeforeRail: Int?
    var attitudes: [Quaternion] = []
    attitudes.reserveCapacity(samples.count)
    for sample in samples {
      var accelerometer = sample.accelerometer
      if clip {
        let limit = SIMD3(repeating: range)
        accelerometer = accelerometer.clamped(lowerBound: -limit, upperBound: limit)
        if accelerometer != sample.accelerometer { clipped += 1 }
      }
      estimator.update(
        timestamp: sample.timestamp, gyroscope: sample.gyroscope, accelerometer: accelerometer,
        magnetometer: sample.magnetometer)
      attitudes.append(estimator.earthFromSensor6D)
      if clippedReadingsBeforeRail == nil, estimator.state.learnedAccelerometerRail != nil {
        clippedReadingsBeforeRail = clipped
      }
      guard sample.timestamp >= 20 else { continue }
      let estimatedUp = estimator.earthFromSensor6D.conjugate.act(on: up)
      let angle = Double.acos(Swift.min(1, Swift.max(-1, (estimatedUp * trueUp).sum())))
      squaredSum += angle * angle
      count += 1
    }
    return Run(
      inclinationError: (squaredSum / Double(count)).squareRoot() / degree, clippedCount: clipped,
      diagnostics: estimator.state.diagnostics,
      clippedReadingsBeforeRail: clippedReadingsBeforeRail,
      learnedRail: estimator.state.learnedAccelerometerRail, attitudes: attitudes)
  }

  func testClippedSamplesAreLeftOutOfTheInclination() {
    let seed = testSeed()
    let handled = run(declaredRange: range, clip: true, seed: seed)
    let unhandled = run(declaredRange: .infinity, clip: true, seed: seed, learnRail: false)
    let unclipped = run(declaredRange: range, clip: false, seed: seed)

    // About one sample in twenty reaches the range on the z axis, and each is counted.
    XCTAssertGreaterThan(handled.clippedCount, 200, "seed \(seed)")
    XCTAssertEqual(
      handled.diagnostics.clippedAccelerometerSamples, handled.clippedCount, "seed \(seed)")
    XCTAssertEqual(unhandled.diagnostics.clippedAccelerometerSamples, 0, "seed \(seed)")

    // Used as they are, the clipped strides average to a vector tilted by about 3.4° (their z
    // component loses ~15 % of the stride mean, y nothing): the error must show, or the test
    // would not exercise clipping at all.
    let visibleTilt = 2.5
    XCTAssertGreaterThan(unhandled.inclinationError, visibleTilt, "seed \(seed)")
    // Left out, the remaining samples are all along gravity: the inclination is as good as
    // without clipping. The bound allows the filter's response to the 2.7 Hz stride ripple
    // and the noise; the unclipped run shows the same figure.
    let handledBound = 0.6
    XCTAssertLessThan(handled.inclinationError, handledBound, "seed \(seed)")
    XCTAssertLessThan(unclipped.inclinationError, handledBound, "seed \(seed)")
    print(
      String(
        format:
          "clipping: inclination RMS %.2f° handled, %.2f° unhandled, %.2f° unclipped (seed %llu)",
        handled.inclinationError, unhandled.inclinationError, unclipped.inclinationError, seed))
  }

  /// Nothing declares the ±8 g range (the 16 g default stays): the rail is learned from the
  /// repeated 8 g readings within the first clipped samples, and the run is handled as well as
  /// with the declared range.
  func testClippingIsHandledWithoutADeclaredRange() {
    let seed = testSeed()
    let defaultRange = AttitudeEstimator.Parameters.default.accelerometerRange
    let learned = run(declaredRange: defaultRange, clip: true, seed: seed)
    let declared = run(declaredRange: range, clip: true, seed: seed, learnRail: false)
    let unhandled = run(declaredRange: defaultRange, clip: true, seed: seed, learnRail: false)
    let unclipped = run(declaredRange: defaultRange, clip: false, seed: seed)

    // The rail is the clamp value itself, learned at the third clipped reading (the default
    // `accelerometerRailRepeats`); from then on every clipped reading is counted.
    XCTAssertEqual(learned.learnedRail, range, "seed \(seed)")
    XCTAssertEqual(learned.clippedReadingsBeforeRail, 3, "seed \(seed)")
    XCTAssertEqual(
      learned.diagnostics.clippedAccelerometerSamples,
      declared.diagnostics.clippedAccelerometerSamples - 2,
      "seed \(seed)")
    XCTAssertNil(unclipped.learnedRail, "seed \(seed)")

    // Without the rail the 16 g default misses the clipping (the 3.4° tilt of the first test).
    let visibleTilt = 2.5
    XCTAssertGreaterThan(unhandled.inclinationError, visibleTilt, "seed \(seed)")
    // With it, the two clipped readings used before the rail is known fall in the first 20 s
    // (outside the RMS) and are forgotten by then: within 0.05° of the declared-range run, and
    // within the first test's bound that the unclipped run meets too.
    let sameAsDeclared = 0.05
    XCTAssertEqual(
      learned.inclinationError, declared.inclinationError, accuracy: sameAsDeclared, "seed \(seed)")
    let handledBound = 0.6
    XCTAssertLessThan(learned.inclinationError, handledBound, "seed \(seed)")
    print(
      String(
        format:
          "rail: inclination RMS %.3f° learned, %.3f° declared 8 g, %.2f° unhandled, %.3f° unclipped (seed %llu)",
        learned.inclinationError, declared.inclinationError, unhandled.inclinationError,
        unclipped.inclinationError, seed))
  }

  /// High peaks that vary from stride to stride (12–15 g, as in BROAD's running trials) never
  /// repeat the running maximum exactly: no rail is learned and the attitude is bit-identical to
  /// a run with the detection off.
  func testVaryingPeaksLearnNoRail() {
    let seed = testSeed()
    let varying: (Double) -> SIMD3<Double> = { t in
      // An irrational ratio between the peak modulation and the stride: no two strides alike.
      let peak = 13.5 + 1.5 * Double.sin(2 * Double.pi * t / (0.37 * Double.pi * 2.3))
      return self.runningAcceleration(t, peak: peak)
    }
    let learning = run(declaredRange: .infinity, clip: false, seed: seed, acceleration: varying)
    let off = run(
      declaredRange: .infinity, clip: false, seed: seed, learnRail: false, acceleration: varying)
    XCTAssertNil(learning.learnedRail, "seed \(seed)")
    XCTAssertEqual(learning.diagnostics.clippedAccelerometerSamples, 0, "seed \(seed)")
    XCTAssertEqual(learning.attitudes, off.attitudes, "seed \(seed)")
  }

  /// A reading beyond a learned rail proves it was none: the rail is dropped.
  func testLargerReadingDropsTheRail() {
    var estimator = AttitudeEstimator(samplePeriod: 0.01)
    let g = Units.standardGravity
    for step in 0..<3 {
      estimator.update(
        timestamp: Double(step) * 0.01, gyroscope: .zero, accelerometer: SIMD3(0, 5 * g, g),
        magnetometer: nil)
    }
    XCTAssertEqual(estimator.state.learnedAccelerometerRail, 5 * g)
    XCTAssertEqual(estimator.state.diagnostics.clippedAccelerometerSamples, 1)
    estimator.update(
      timestamp: 0.03, gyroscope: .zero, accelerometer: SIMD3(0, 0, 6 * g), magnetometer: nil)
    XCTAssertNil(estimator.state.learnedAccelerometerRail)
    XCTAssertEqual(estimator.state.diagnostics.clippedAccelerometerSamples, 1)
  }

  /// Below the floor nothing is learned however often a reading repeats (2 g here; 1 g at rest).
  func testRepeatsBelowTheFloorLearnNothing() {
    var estimator = AttitudeEstimator(samplePeriod: 0.01)
    let g = Units.standardGravity
    for step in 0..<10 {
      estimator.update(
        timestamp: Double(step) * 0.01, gyroscope: .zero, accelerometer: SIMD3(0, 2 * g, g),
        magnetometer: nil)
    }
    XCTAssertNil(estimator.state.learnedAccelerometerRail)
    XCTAssertEqual(estimator.state.diagnostics.clippedAccelerometerSamples, 0)
  }

  /// The clipping level is the range less the margin: a reading a little below a ±8 g range
  /// (factory scale calibration) still counts; one well inside does not.
  func testClippingLevelHasAMargin() {
    var parameters = AttitudeEstimator.Parameters.default
    parameters.accelerometerRange = range
    var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: 0.01)
    let g = Units.standardGravity
    estimator.update(
      timestamp: 0, gyroscope: .zero, accelerometer: SIMD3(0, 0, g), magnetometer: nil)
    estimator.update(
      timestamp: 0.01, gyroscope: .zero, accelerometer: SIMD3(0, 7.9 * g, g), magnetometer: nil)
    XCTAssertEqual(estimator.state.diagnostics.clippedAccelerometerSamples, 1)
    estimator.update(
      timestamp: 0.02, gyroscope: .zero, accelerometer: SIMD3(0, 7 * g, g), magnetometer: nil)
    estimator.update(
      timestamp: 0.03, gyroscope: .zero, accelerometer: SIMD3(-8 * g, 0, g), magnetometer: nil)
    XCTAssertEqual(estimator.state.diagnostics.clippedAccelerometerSamples, 2)
    XCTAssertEqual(estimator.state.diagnostics.acceptedSamples, 4)
  }
}
