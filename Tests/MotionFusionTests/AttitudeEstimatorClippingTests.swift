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
    let peak = 12.0
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
  }

  /// Runs 60 s of running at 100 Hz through an estimator whose accelerometer range is
  /// `declaredRange` (m/s²), with the readings clipped at ±8 g when `clip` is set.
  private func run(declaredRange: Double, clip: Bool, seed: UInt64) -> Run {
    var imu = SyntheticIMU()
    imu.accelerometerNoise = 0.05
    imu.gyroscopeNoise = 0.002
    imu.magnetometerNoise = 0.2
    imu.rng = SplitMix64(seed: seed)
    let samples = imu.samples(
      duration: 60, rate: 100, attitude: { [truth] _ in truth }, acceleration: runningAcceleration)
    var parameters = AttitudeEstimator.Parameters.default
    parameters.accelerometerRange = declaredRange
    var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: 0.01)
    let up = SIMD3<Double>(0, 0, 1)
    let trueUp = truth.conjugate.act(on: up)
    var squaredSum = 0.0
    var count = 0
    var clipped = 0
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
      guard sample.timestamp >= 20 else { continue }
      let estimatedUp = estimator.earthFromSensor6D.conjugate.act(on: up)
      let angle = Double.acos(Swift.min(1, Swift.max(-1, (estimatedUp * trueUp).sum())))
      squaredSum += angle * angle
      count += 1
    }
    return Run(
      inclinationError: (squaredSum / Double(count)).squareRoot() / degree, clippedCount: clipped,
      diagnostics: estimator.state.diagnostics)
  }

  func testClippedSamplesAreLeftOutOfTheInclination() {
    let seed = testSeed()
    let handled = run(declaredRange: range, clip: true, seed: seed)
    let unhandled = run(declaredRange: .infinity, clip: true, seed: seed)
    let unclipped = run(declaredRange: range, clip: false, seed: seed)

    // About one sample in twenty reaches the range on the z axis, and each is counted.
    XCTAssertGreaterThan(handled.clippedCount, 200, "seed \(seed)")
    XCTAssertEqual(handled.diagnostics.clippedAccelerometerSamples, handled.clippedCount, "seed \(seed)")
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
        format: "clipping: inclination RMS %.2f° handled, %.2f° unhandled, %.2f° unclipped (seed %llu)",
        handled.inclinationError, unhandled.inclinationError, unclipped.inclinationError, seed))
  }

  /// The clipping level is the range less the margin: a reading a little below a ±8 g range
  /// (factory scale calibration) still counts; one well inside does not.
  func testClippingLevelHasAMargin() {
    var parameters = AttitudeEstimator.Parameters.default
    parameters.accelerometerRange = range
    var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: 0.01)
    let g = Units.standardGravity
    estimator.update(timestamp: 0, gyroscope: .zero, accelerometer: SIMD3(0, 0, g), magnetometer: nil)
    estimator.update(timestamp: 0.01, gyroscope: .zero, accelerometer: SIMD3(0, 7.9 * g, g), magnetometer: nil)
    XCTAssertEqual(estimator.state.diagnostics.clippedAccelerometerSamples, 1)
    estimator.update(timestamp: 0.02, gyroscope: .zero, accelerometer: SIMD3(0, 7 * g, g), magnetometer: nil)
    estimator.update(timestamp: 0.03, gyroscope: .zero, accelerometer: SIMD3(-8 * g, 0, g), magnetometer: nil)
    XCTAssertEqual(estimator.state.diagnostics.clippedAccelerometerSamples, 2)
    XCTAssertEqual(estimator.state.diagnostics.acceptedSamples, 4)
  }
}
