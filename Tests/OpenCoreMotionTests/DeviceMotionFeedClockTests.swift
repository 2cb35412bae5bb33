// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// `DeviceMotionFeed` passes each held accelerometer and magnetometer reading's own timestamp to
/// the estimator, so sensors on their own clocks (one sensor per sample, as Sensor Logger exports
/// and phone streams give them) are compared with the attitude of the instant they describe.
final class DeviceMotionFeedClockTests: XCTestCase {
  private let degree = Units.radiansPerDegree

  /// The noiseless figure-8 at 100 Hz; the accelerometer and the magnetometer at 25 Hz on their
  /// own clocks (each reading the mean of four 100 Hz readings, stamped with the last one's time
  /// one and three gyroscope samples apart), each sensor in its own sample. The feed's inclination
  /// (the angle between its up and the true up; the heading would also carry the default
  /// magnetometer delay, which the simulator's field does not have) against the same inputs given
  /// to the estimator as readings of the gyroscope's instant.
  /// The angle between the sensor-frame up directions of two attitudes, rad.
  private func tilt(_ estimate: Quaternion, _ truth: Quaternion) -> Double {
    let up = SIMD3<Double>(0, 0, 1)
    let cosine = (estimate.conjugate.act(on: up) * truth.conjugate.act(on: up)).sum()
    return Double.acos(Swift.min(1, Swift.max(-1, cosine)))
  }

  func testSensorsOnTheirOwnClocksArePairedByTheirTimestamps() throws {
    var scenario = try Scenario.named("figure8")
    scenario.noise = .noiseless
    var stream = SimulatedSensorStream(scenario: scenario)
    let samples = try stream.collect()
    XCTAssertGreaterThan(samples.count, 2000)
    var feed = DeviceMotionFeed(samplePeriod: 0.01)
    var held = DeviceMotionEstimator(samplePeriod: 0.01)
    var latestAccelerometer: SIMD3<Double>?
    var latestMagnetometer: SIMD3<Double>?
    var fed = (sum: 0.0, count: 0.0)
    var asHeld = (sum: 0.0, count: 0.0)
    func mean(_ i: Int, _ reading: (MotionSample) -> SIMD3<Double>?) -> SIMD3<Double> {
      (i - 3...i).map { reading(samples[$0])! }.reduce(.zero, +) / 4
    }
    for (i, sample) in samples.enumerated() {
      let truth = sample.groundTruth!.earthFromSensor!
      let scored = sample.timestamp >= 10
      if let estimate = feed.update(
        with: MotionSample(timestamp: sample.timestamp, gyroscope: sample.gyroscope)),
        scored
      {
        let e = tilt(estimate.earthFromSensor6D, truth)
        fed.sum += e * e
        fed.count += 1
      }
      if let a = latestAccelerometer, let m = latestMagnetometer {
        held.update(
          timestamp: sample.timestamp, gyroscope: sample.gyroscope!, accelerometer: a,
          magnetometer: m)
        if scored {
          let e = tilt(held.earthFromSensor6D, truth)
          asHeld.sum += e * e
          asHeld.count += 1
        }
      }
      // The other two sensors tick after the gyroscope, each on its own clock.
      if i >= 3 && i % 4 == 1 {
        let a = mean(i, \.accelerometer)
        latestAccelerometer = a
        _ = feed.update(with: MotionSample(timestamp: sample.timestamp, accelerometer: a))
      }
      if i >= 3 && i % 4 == 3 {
        let m = mean(i, \.magnetometer)
        latestMagnetometer = m
        _ = feed.update(with: MotionSample(timestamp: sample.timestamp, magnetometer: m))
      }
    }
    let fedError = (fed.sum / fed.count).squareRoot() / degree
    let heldError = (asHeld.sum / asHeld.count).squareRoot() / degree
    // Measured: 0.22° through the feed, 4.04° with the readings taken as the gyroscope's.
    XCTAssertLessThan(fedError, 0.4)
    XCTAssertGreaterThan(heldError, 5 * fedError)
  }
}
