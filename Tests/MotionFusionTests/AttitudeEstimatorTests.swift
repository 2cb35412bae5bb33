// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import XCTest
import _MotionTestSupport

final class AttitudeEstimatorTests: XCTestCase {
  private let degree = Units.radiansPerDegree

  private func run(
    _ samples: [SyntheticIMU.Sample], into estimator: inout AttitudeEstimator,
    magnetometer: Bool = true
  ) {
    for s in samples {
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: magnetometer ? s.magnetometer : nil)
    }
  }

  /// From any initial attitude at rest, inclination and magnetic heading converge.
  func testConvergesFromArbitraryAttitudes() {
    let seed = testSeed()
    var rng = SplitMix64(seed: seed)
    var attitudes = (0..<6).map { _ in rng.nextUnitQuaternion() }
    attitudes.append(Quaternion(w: 0, x: 1, y: 0, z: 0))  // upside down
    for truth in attitudes {
      var imu = SyntheticIMU()
      imu.accelerometerNoise = 0.02
      imu.magnetometerNoise = 0.2
      imu.rng = SplitMix64(seed: seed &+ 1)
      let samples = imu.samples(duration: 10, rate: 100, attitude: { _ in truth })
      var estimator = AttitudeEstimator(samplePeriod: 0.01)
      run(samples, into: &estimator)
      // At rest the accelerometer filter's warm-up averages the noise: 0.02 m/s² noise is
      // well under 0.1° of tilt; the heading follows the field within its filter time.
      let error = estimator.earthFromSensor9D.angle(to: truth) / degree
      XCTAssertLessThan(error, 0.5, "truth \(truth), seed \(seed)")
    }
  }

  /// At rest the bias estimate converges to the true bias.
  func testBiasConvergesAtRest() {
    let seed = testSeed()
    var imu = SyntheticIMU()
    imu.gyroscopeBias = SIMD3(0.01, -0.015, 0.02)  // about 0.6–1.1 °/s
    imu.gyroscopeNoise = 0.002
    imu.rng = SplitMix64(seed: seed)
    let truth = Quaternion(angle: 0.4, axis: SIMD3(1, 2, 3))
    let samples = imu.samples(duration: 20, rate: 100, attitude: { _ in truth })
    var estimator = AttitudeEstimator(samplePeriod: 0.01)
    run(samples, into: &estimator)
    XCTAssertTrue(estimator.state.isRestDetected)
    // 0.03 °/s measurement noise and 2000 averaged samples: well within 0.05 °/s.
    XCTAssertLessThan(
      (estimator.gyroscopeBias - imu.gyroscopeBias).length / degree, 0.05, "seed \(seed)")
  }

  /// A device that sways (a phone in the pocket of someone standing: ±4 °/s at 1.5 Hz, a fraction
  /// of a degree of tilt) is not at rest, although its low-pass filtered rate is near zero and its
  /// accelerometer is steady: rest also needs a steady gyroscope, or the sway would be learnt as
  /// bias (MotionSense standing trials: median gravity angle to Apple's 0.77° → 0.48° on one).
  func testSwayIsNotRest() {
    let amplitude = 4 * degree / (2 * Double.pi * 1.5)  // rad, for a 4 °/s peak rate
    var imu = SyntheticIMU()
    let samples = imu.samples(
      duration: 20, rate: 50,
      attitude: { t in
        Quaternion(angle: amplitude * Double.sin(2 * Double.pi * 1.5 * t), axis: SIMD3(1, 0, 0))
      })
    var estimator = AttitudeEstimator(samplePeriod: 0.02)
    var restSamples = 0
    for s in samples {
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: nil)
      if estimator.state.isRestDetected { restSamples += 1 }
    }
    XCTAssertEqual(restSamples, 0)
    // The same device held still is at rest within the 1.5 s the detector waits (plus its filters).
    var still = AttitudeEstimator(samplePeriod: 0.02)
    for s in imu.samples(duration: 3, rate: 50, attitude: { _ in .identity }) {
      still.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: nil)
    }
    XCTAssertTrue(still.state.isRestDetected)
  }

  /// During continuous motion (no rest) the horizontal bias is found from the inclination
  /// corrections.
  func testBiasConvergesInMotion() {
    var imu = SyntheticIMU()
    imu.gyroscopeBias = SIMD3(0.01, -0.01, 0.005)
    let samples = imu.samples(
      duration: 120, rate: 100,
      attitude: { t in
        Quaternion(angle: 0.3 * Double.sin(0.5 * t), axis: SIMD3(1, 0, 0))
          * Quaternion(angle: 0.3 * Double.sin(0.37 * t), axis: SIMD3(0, 1, 0))
          * Quaternion(angle: 0.2 * t, axis: SIMD3(0, 0, 1))
      })
    var estimator = AttitudeEstimator(samplePeriod: 0.01)
    run(samples, into: &estimator, magnetometer: false)
    XCTAssertFalse(estimator.state.isRestDetected)
    let error = (estimator.gyroscopeBias - imu.gyroscopeBias).length / degree
    // Starting from 0.86 °/s of bias error, motion alone brings it under 0.15 °/s in 2 minutes.
    XCTAssertLessThan(error, 0.15)
  }

  /// A known trajectory with horizontal accelerations: gravity and linear acceleration are split
  /// correctly (the user acceleration does not tilt the estimate).
  func testGravityAndLinearAccelerationSplit() {
    var imu = SyntheticIMU()
    let attitude: (Double) -> Quaternion = { t in
      Quaternion(angle: 0.5 * t, axis: SIMD3(0, 0, 1))
        * Quaternion(angle: 0.3, axis: SIMD3(1, 0, 0))
    }
    // ±2 m/s² back and forth along north at 1 Hz.
    let acceleration: (Double) -> SIMD3<Double> = { t in SIMD3(2 * Double.sin(2 * .pi * t), 0, 0) }
    let samples = imu.samples(
      duration: 40, rate: 100, attitude: attitude, acceleration: acceleration)
    var estimator = DeviceMotionEstimator(samplePeriod: 0.01)
    var worstTilt = 0.0, worstLinear = 0.0
    for s in samples {
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
      guard s.timestamp > 10 else { continue }
      let trueGravity = s.earthFromSensor.conjugate.act(on: SIMD3(0, 0, -Units.standardGravity))
      let tilt = Double.acos(min(1, estimator.gravity.normalized.dot(trueGravity.normalized)))
      worstTilt = max(worstTilt, tilt)
      let trueLinear = s.earthFromSensor.conjugate.act(on: acceleration(s.timestamp))
      worstLinear = max(
        worstLinear,
        (estimator.linearAcceleration(specificForce: s.accelerometer) - trueLinear).length)
    }
    // 2 m/s² at 1 Hz is attenuated ~100× by the 3 s filter: tilt stays well under 0.5°,
    // and the linear acceleration error is g·tilt.
    XCTAssertLessThan(worstTilt / degree, 0.5)
    XCTAssertLessThan(worstLinear, 0.1)
  }

  /// Skipped inputs never touch the state: a run with bad samples interleaved ends in exactly
  /// the same state as the clean run, and every skip is counted.
  func testBadSamplesAreSkippedAndCounted() {
    var imu = SyntheticIMU()
    imu.accelerometerNoise = 0.05
    let samples = imu.samples(duration: 5, rate: 100, attitude: tumblingAttitude)
    var clean = AttitudeEstimator(samplePeriod: 0.01)
    var dirty = AttitudeEstimator(samplePeriod: 0.01)
    let nan = Double.nan
    for (k, s) in samples.enumerated() {
      clean.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
      dirty.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
      if k % 50 == 10 {
        dirty.update(
          timestamp: s.timestamp + 0.001, gyroscope: SIMD3(nan, 0, 0),
          accelerometer: s.accelerometer, magnetometer: nil)
        dirty.update(
          timestamp: s.timestamp + 0.001, gyroscope: .zero, accelerometer: .zero,
          magnetometer: .zero)
        dirty.update(
          timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
          magnetometer: nil)  // duplicate
        dirty.update(
          timestamp: s.timestamp - 0.5, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
          magnetometer: nil)  // out of order
        dirty.update(
          timestamp: .infinity, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
          magnetometer: nil)
      }
    }
    XCTAssertEqual(clean.earthFromSensor9D, dirty.earthFromSensor9D)
    XCTAssertEqual(clean.gyroscopeBias, dirty.gyroscopeBias)
    let d = dirty.state.diagnostics
    XCTAssertEqual(d.nonFiniteSamples, 20)
    XCTAssertEqual(d.zeroAccelerometerSamples, 10)
    XCTAssertEqual(d.outOfOrderSamples, 20)
    XCTAssertEqual(d.acceptedSamples, samples.count)
  }

  /// One sample stamped far ahead (1e9 s), or a clock that restarts lower, is a new timeline: the
  /// samples after it are taken like those after a gap, and the attitude follows the device
  /// again. It used to skip every later sample as out of order, so the attitude froze for good.
  /// A sample only a little early (0.5 s) is still skipped.
  func testTimeGoingBackByMoreThanAGapStartsANewTimeline() {
    var imu = SyntheticIMU()
    let before = Quaternion(angle: 0.7, axis: SIMD3(0, 1, 1))
    let after = Quaternion(angle: 1.2, axis: SIMD3(1, 0, 1))
    var estimator = AttitudeEstimator(samplePeriod: 0.01)
    func feed(_ samples: [SyntheticIMU.Sample]) {
      for s in samples {
        estimator.update(
          timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
          magnetometer: s.magnetometer)
      }
    }
    let first = imu.samples(duration: 5, rate: 100, attitude: { _ in before })
    feed(first)
    let last = first[first.count - 1]
    estimator.update(
      timestamp: 1e9, gyroscope: last.gyroscope, accelerometer: last.accelerometer,
      magnetometer: last.magnetometer)
    // Back to the real clock, with the device turned: followed within 0.5° (inclination from
    // the accelerometer at once, heading from the magnetometer in a few seconds).
    feed(imu.samples(duration: 20, rate: 100, start: 5, attitude: { _ in after }))
    XCTAssertEqual(estimator.state.diagnostics.gaps, 2, "to 1e9 s and back")
    XCTAssertEqual(estimator.state.diagnostics.outOfOrderSamples, 0)
    XCTAssertLessThan(estimator.earthFromSensor9D.angle(to: after) / degree, 0.5)
    // The clock restarts at 0: a new timeline again.
    feed(imu.samples(duration: 20, rate: 100, attitude: { _ in before }))
    XCTAssertEqual(estimator.state.diagnostics.gaps, 3)
    XCTAssertLessThan(estimator.earthFromSensor9D.angle(to: before) / degree, 0.5)
    // Half a second early: out of order, skipped.
    estimator.update(
      timestamp: 19.5, gyroscope: .zero, accelerometer: SIMD3(9.81, 0, 0), magnetometer: nil)
    XCTAssertEqual(estimator.state.diagnostics.outOfOrderSamples, 1)
    XCTAssertLessThan(estimator.earthFromSensor9D.angle(to: before) / degree, 0.5)
  }

  /// Saturated readings are counted and kept out of the corrections; a long gap restarts the
  /// attitude but keeps the bias; a NaN magnetometer only loses the heading update.
  func testSaturationGapAndMagnetometerNaN() {
    var imu = SyntheticIMU()
    imu.gyroscopeBias = SIMD3(0.01, 0, 0)
    let truth = Quaternion(angle: 0.7, axis: SIMD3(0, 1, 1))
    let samples = imu.samples(duration: 10, rate: 100, attitude: { _ in truth })
    var estimator = AttitudeEstimator(samplePeriod: 0.01)
    for s in samples {
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
    }
    let bias = estimator.gyroscopeBias
    estimator.update(
      timestamp: 10.001, gyroscope: s0(samples).gyroscope, accelerometer: SIMD3(200, 0, 0),
      magnetometer: nil)
    XCTAssertEqual(estimator.state.diagnostics.saturatedSamples, 1)
    XCTAssertLessThan(estimator.earthFromSensor9D.angle(to: truth) / degree, 0.5)
    estimator.update(
      timestamp: 10.002, gyroscope: s0(samples).gyroscope, accelerometer: s0(samples).accelerometer,
      magnetometer: SIMD3(.nan, 1, 1))
    XCTAssertEqual(estimator.state.diagnostics.nonFiniteSamples, 1)
    // A 5 s gap: restart, keep bias, converge again.
    let later = imu.samples(duration: 5, rate: 100, start: 15, attitude: { _ in truth })
    for s in later {
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
    }
    XCTAssertEqual(estimator.state.diagnostics.gaps, 1)
    XCTAssertLessThan((estimator.gyroscopeBias - bias).length, 0.002)
    XCTAssertLessThan(estimator.earthFromSensor9D.angle(to: truth) / degree, 0.5)
    XCTAssertTrue(estimator.earthFromSensor9D.isFinite)
  }

  /// Across a gap the attitude restarts from the accelerometer, but the arbitrary (6D) heading
  /// carries on: a device turned 60° about the vertical before a 3 s gap and tilted during it has
  /// the right inclination at once after it, and the same 6D yaw as before (nothing is known about
  /// the turn during the gap; before this, the yaw started over near 0).
  func testAGapKeepsTheArbitraryHeading() {
    var imu = SyntheticIMU()
    let turned = Quaternion.aboutZ(60 * degree)
    let before = imu.samples(
      duration: 4, rate: 100,
      attitude: { t in Quaternion.aboutZ(60 * degree * Swift.min(t / 2, 1)) })
    var estimator = AttitudeEstimator(samplePeriod: 0.01)
    run(before, into: &estimator, magnetometer: false)
    let yawBefore = AttitudeAngles(estimator.earthFromSensor6D).yaw / degree
    XCTAssertEqual(yawBefore, 60, accuracy: 1)
    let tilted = turned * Quaternion(angle: 30 * degree, axis: SIMD3(1, 0, 0))
    let after = imu.samples(duration: 0.2, rate: 100, start: 7, attitude: { _ in tilted })
    run(after, into: &estimator, magnetometer: false)
    XCTAssertEqual(estimator.state.diagnostics.gaps, 1)
    let attitude = estimator.earthFromSensor6D
    let up = attitude.conjugate.act(on: SIMD3(0, 0, 1))
    let trueUp = tilted.conjugate.act(on: SIMD3(0, 0, 1))
    // The inclination from the first sample after the gap (the accelerometer's warm start).
    XCTAssertLessThan(acos(min(1, (up * trueUp).sum())) / degree, 0.5)
    // The heading of the device's axes, as before the gap (the shortest-arc inclination step
    // moves it by well under a degree at 30° of tilt).
    XCTAssertEqual(AttitudeAngles(attitude).yaw / degree, 60, accuracy: 2)
  }

  private func s0(_ s: [SyntheticIMU.Sample]) -> SyntheticIMU.Sample { s[0] }

  /// A device-fixed magnet appearing mid-run is rejected as a disturbance: the heading holds.
  func testAttachedMagnetIsRejected() {
    var imu = SyntheticIMU()
    let first = imu.samples(duration: 20, rate: 100, attitude: tumblingAttitude)
    imu.hardIron = SIMD3(25, -10, 5)
    let second = imu.samples(duration: 15, rate: 100, start: 20, attitude: tumblingAttitude)
    var estimator = AttitudeEstimator(samplePeriod: 0.01)
    var worst = 0.0
    var disturbedSeen = false
    for s in first + second {
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
      disturbedSeen = disturbedSeen || estimator.state.isMagneticDisturbanceDetected
      if s.timestamp > 10 {
        worst = max(worst, estimator.earthFromSensor9D.angle(to: s.earthFromSensor))
      }
    }
    XCTAssertTrue(disturbedSeen)
    XCTAssertLessThan(worst / degree, 2)
  }

  /// The outputs are the filter's attitude extrapolated over the gyroscope delay at the latest
  /// bias-corrected rate; the filter itself does not change.
  func testGyroscopeDelayExtrapolatesOutputsOnly() {
    var imu = SyntheticIMU()
    let samples = imu.samples(
      duration: 3, rate: 100, attitude: { t in Quaternion(angle: 0.8 * t, axis: SIMD3(1, 2, 2)) })
    var parameters = AttitudeEstimator.Parameters.default
    parameters.gyroscopeDelay = 0
    var plain = AttitudeEstimator(parameters: parameters, samplePeriod: 0.01)
    parameters.gyroscopeDelay = 0.005
    var delayed = AttitudeEstimator(parameters: parameters, samplePeriod: 0.01)
    for s in samples {
      plain.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
      delayed.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
    }
    XCTAssertEqual(plain.filteredAttitude6D, delayed.filteredAttitude6D)
    let rate = samples.last!.gyroscope - delayed.gyroscopeBias
    let expected = delayed.filteredAttitude6D * Quaternion(rotationVector: rate * 0.005)
    // The same product as the estimator's, so only rounding separates them.
    let sameFormulaTolerance = 1e-9  // rad
    XCTAssertLessThan(delayed.earthFromSensor6D.angle(to: expected), sameFormulaTolerance)
    // 0.8 rad/s for 5 ms: 0.23° ahead. The extrapolation uses the bias-corrected rate, so the lead
    // differs from 0.8 · 0.005 rad by the estimated bias (a few mrad/s → about 1e-3° over 5 ms).
    let biasCorrectionTolerance = 1e-3  // degrees
    XCTAssertEqual(
      delayed.earthFromSensor6D.angle(to: plain.earthFromSensor6D) / degree, 0.8 * 0.005 / degree,
      accuracy: biasCorrectionTolerance)
  }
}
