// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionSensors

/// The seeded error models: reproducibility, white-noise statistics, bias drift, distortion,
/// quantisation, clipping and timestamp jitter.
final class SimulatorNoiseTests: XCTestCase {
  func testSameSeedGivesIdenticalSamples() throws {
    let scenario = try Scenario.named("shake")
    let seed = testSeed()
    XCTAssertEqual(
      try simulate(scenario, seed: seed), try simulate(scenario, seed: seed), "seed \(seed)")
    // The scenario's own seed is used when none is given, and an override with that value is the
    // same.
    XCTAssertEqual(try simulate(scenario), try simulate(scenario, seed: scenario.seed))
  }

  func testDifferentSeedsGiveDifferentNoise() throws {
    let scenario = try Scenario.named("flat")
    let seed = testSeed()
    let a = try simulate(scenario, seed: seed)
    let b = try simulate(scenario, seed: seed &+ 1)
    XCTAssertEqual(a.count, b.count)
    let differing = zip(a, b).filter { $0.0.gyroscope != $0.1.gyroscope }.count
    XCTAssertGreaterThan(differing, a.count * 9 / 10, "seed \(seed)")
    // The ground truth does not depend on the seed (only the bias drift does).
    XCTAssertEqual(a[500].groundTruth?.earthFromSensor, b[500].groundTruth?.earthFromSensor)
  }

  func testNoiselessPresetIsExact() throws {
    let samples = try simulate(try noiselessScenario("flat", duration: 2))
    for (k, sample) in samples.enumerated() {
      XCTAssertEqual(sample.timestamp, Double(k) / 100, accuracy: 1e-12)
      XCTAssertEqual(sample.pressure, StandardAtmosphere.seaLevelPressure)
      XCTAssertEqual(sample.temperature, 25)
      XCTAssertEqual(sample.groundTruth?.gyroscopeBias, .zero)
    }
  }

  func testWhiteNoiseStandardDeviationMatchesDensity() throws {
    // σ per sample = density·√rate. With n = 20 000 samples per axis the sample standard deviation
    // has a relative standard error of 1/√(2n) = 0.5 %, so a 3 % tolerance is six standard errors.
    let density = 0.01
    let rate = 200.0
    var scenario = try noiselessScenario("flat")
    scenario.sampleRate = rate
    scenario.duration = 100
    scenario.noise.gyroscope = SensorNoiseModel(noiseDensity: density, bias: SIMD3(0.1, -0.2, 0.3))
    scenario.noise.barometer = ScalarSensorNoiseModel(noiseDensity: 1e-4)
    let seed = testSeed()
    let samples = try simulate(scenario, seed: seed)
    XCTAssertEqual(samples.count, 20_000)
    let expected = density * rate.squareRoot()
    for axis in 0..<3 {
      let values = samples.map { $0.gyroscope![axis] }
      let (mean, deviation) = Self.meanAndStandardDeviation(values)
      XCTAssertEqual(deviation, expected, accuracy: 0.03 * expected, "axis \(axis), seed \(seed)")
      // The mean is the bias to within 5 standard errors.
      XCTAssertEqual(
        mean, [0.1, -0.2, 0.3][axis], accuracy: 5 * expected / Double(values.count).squareRoot())
    }
    let pressures = samples.map { $0.pressure! }
    XCTAssertEqual(
      Self.meanAndStandardDeviation(pressures).1, 1e-4 * rate.squareRoot(),
      accuracy: 0.03 * 1e-4 * rate.squareRoot())
    // The other sensors stay exact.
    XCTAssertEqual(samples[123].accelerometer, SIMD3(0, 0, Units.standardGravity))
  }

  func testBiasRandomWalkGrowsWithTheSquareRootOfTime() throws {
    // Across independent runs the drift's variance after t seconds is K²·t. With 64 runs × 3 axes
    // the variance estimate has a relative standard error of √(2/192) ≈ 10 %; ±35 % is 3.5 of them.
    let walk = 0.01
    var scenario = try noiselessScenario("flat", duration: 10)
    scenario.noise.gyroscope = SensorNoiseModel(biasRandomWalk: walk)
    let base = testSeed()
    var early: [Double] = []
    var late: [Double] = []
    for run in 0..<64 {
      let samples = try simulate(scenario, seed: base &+ UInt64(run))
      let atOne = samples[100]
      let atTen = samples[999]
      for axis in 0..<3 {
        early.append(atOne.groundTruth!.gyroscopeBias![axis])
        late.append(atTen.groundTruth!.gyroscopeBias![axis])
        // The reading is the true rate (zero) plus the current bias.
        XCTAssertEqual(
          atTen.gyroscope![axis], atTen.groundTruth!.gyroscopeBias![axis], accuracy: 1e-15)
      }
    }
    let earlyVariance = early.map { $0 * $0 }.reduce(0, +) / Double(early.count)
    let lateVariance = late.map { $0 * $0 }.reduce(0, +) / Double(late.count)
    XCTAssertEqual(
      earlyVariance, walk * walk * 1.01, accuracy: 0.35 * walk * walk * 1.01, "seed \(base)")
    XCTAssertEqual(
      lateVariance, walk * walk * 10, accuracy: 0.35 * walk * walk * 10, "seed \(base)")
    XCTAssertGreaterThan(lateVariance, 4 * earlyVariance)
  }

  func testScaleFactorMisalignmentQuantisationAndRange() throws {
    var scenario = try noiselessScenario("faceUp", duration: 0.5)
    scenario.noise.accelerometer = SensorNoiseModel(scaleFactorError: SIMD3(0, 0, 0.01))
    let g = Units.standardGravity
    XCTAssertEqual(try simulate(scenario)[0].accelerometer!.z, 1.01 * g, accuracy: 1e-12)

    // A 2° misalignment about x tilts the sensed up axis by 2° towards −y.
    scenario.noise.accelerometer = SensorNoiseModel(misalignment: SIMD3(2, 0, 0))
    let tilted = try simulate(scenario)[0].accelerometer!
    XCTAssertEqual(tilted.length, g, accuracy: 1e-12)
    XCTAssertEqual(Double.atan2(-tilted.y, tilted.z) * Units.degreesPerRadian, 2, accuracy: 1e-9)

    scenario.noise.accelerometer = SensorNoiseModel(quantization: 0.5)
    XCTAssertEqual(try simulate(scenario)[0].accelerometer!, SIMD3(0, 0, 10))

    scenario.noise.accelerometer = SensorNoiseModel(range: 2 * g)
    scenario.segments = [
      .rest(duration: 1),
      .tap(axis: SIMD3(1, 0, 0), peakAcceleration: 50, pulseDuration: 0.05, duration: 1),
    ]
    scenario.duration = nil
    let clipped = try simulate(scenario).map { $0.accelerometer!.x }
    XCTAssertEqual(clipped.max()!, 2 * g, accuracy: 1e-12)
  }

  func testTimestampJitterKeepsTimestampsIncreasingAndNearNominal() throws {
    var scenario = try noiselessScenario("shake")
    scenario.noise.timestampJitter = 0.003  // large: 30 % of the period, so clamping matters
    let seed = testSeed()
    let samples = try simulate(scenario, seed: seed)
    let trajectory = ScenarioTrajectory(scenario: scenario)
    var jittered = 0
    for (k, sample) in samples.enumerated() {
      let nominal = Double(k) / 100
      XCTAssertLessThanOrEqual(Swift.abs(sample.timestamp - nominal), 0.004 + 1e-12, "seed \(seed)")
      if sample.timestamp != nominal { jittered += 1 }
      if k > 0 { XCTAssertGreaterThan(sample.timestamp, samples[k - 1].timestamp, "seed \(seed)") }
      // The sample reads the interval that ends at its stamped (jittered) instant: it matches the
      // trajectory at that interval's middle, half a nominal period earlier.
      let truth = sensedState(scenario, trajectory, at: sample.timestamp)
      assertVectorsEqual(sample.accelerometer, truth.specificForce, accuracy: 1e-9)
    }
    XCTAssertGreaterThan(jittered, samples.count / 2)
  }

  func testPhonePresetLooksLikeAPhoneAtRest() throws {
    let samples = try simulate(try Scenario.named("faceUp"))
    let g = Units.standardGravity
    for sample in samples {
      // Within 0.2 m/s² of 1 g (bias 0.08, scale 0.4 %, noise 0.018 rms) and 0.02 rad/s of zero.
      XCTAssertEqual(sample.accelerometer!.z, g, accuracy: 0.2)
      XCTAssertLessThan(sample.gyroscope!.length, 0.02)
      XCTAssertTrue(sample.isFinite)
    }
    let meanRate = samples.reduce(SIMD3<Double>.zero) { $0 + $1.gyroscope! } / Double(samples.count)
    assertVectorsEqual(meanRate, SimulatorNoise.phone.gyroscope.bias, accuracy: 0.002)
  }

  private static func meanAndStandardDeviation(_ values: [Double]) -> (Double, Double) {
    let mean = values.reduce(0, +) / Double(values.count)
    let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
    return (mean, variance.squareRoot())
  }
}
