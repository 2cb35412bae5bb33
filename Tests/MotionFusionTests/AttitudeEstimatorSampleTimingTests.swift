// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import XCTest

/// An accelerometer or magnetometer sample that averages over its reading interval describes the
/// middle of the interval, while the integrated gyroscope gives the attitude at its end
/// (``AttitudeEstimator/Parameters/sampleAveragingLag``).
final class AttitudeEstimatorSampleTimingTests: XCTestCase {
  private let degree = Units.radiansPerDegree
  private let rate = 20.0  // Hz: a phone app's low rate, where the half interval is 25 ms.

  /// RMS of `error(estimate, truth)` over the last 10 s of 30 s along `attitude`, with averaged
  /// vector samples at 20 Hz.
  private func rmsError(
    lag: Double, attitude: @escaping (Double) -> Quaternion,
    error: (AttitudeEstimator, Quaternion) -> Double
  ) -> Double {
    var imu = SyntheticIMU()
    imu.vectorAveragingPoints = 32
    let samples = imu.samples(duration: 30, rate: rate, attitude: attitude)
    var parameters = AttitudeEstimator.Parameters.default
    parameters.sampleAveragingLag = lag
    parameters.magnetometerDelay = 0  // the synthetic magnetometer is in step with the gyroscope
    parameters.gyroscopeDelay = 0
    var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: 1 / rate)
    var sum = 0.0
    var count = 0
    for s in samples {
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
      if s.timestamp >= 20 {
        let e = error(estimator, s.earthFromSensor)
        sum += e * e
        count += 1
      }
    }
    return (sum / Double(count)).squareRoot() / degree
  }

  /// Angle between the estimated and the true "up" in the sensor frame, rad.
  private func inclinationError(_ estimator: AttitudeEstimator, _ truth: Quaternion) -> Double {
    let up = SIMD3<Double>(0, 0, 1)
    let estimated = estimator.earthFromSensor9D.conjugate.act(on: up)
    let actual = truth.conjugate.act(on: up)
    return Double.acos(Swift.min(1, (estimated * actual).sum()))
  }

  /// The 9D attitude's angle to the truth, rad (turning about the vertical: all of it heading).
  private func totalError(_ estimator: AttitudeEstimator, _ truth: Quaternion) -> Double {
    estimator.earthFromSensor9D.angle(to: truth)
  }

  /// Tumbling about a horizontal axis at 1.5 rad/s: paired with the interval's end, gravity
  /// seems tilted by the half interval's rotation (1.5 rad/s · 25 ms = 2.1°) about that axis, in
  /// the same direction all the time, so the filter keeps it; paired with the middle it does not.
  func testTumblingInclinationUsesTheMiddleOfTheInterval() {
    let tumble = { (t: Double) in Quaternion(angle: 1.5 * t, axis: SIMD3(1, 0, 0)) }
    let atEnd = rmsError(lag: 0, attitude: tumble, error: inclinationError)
    let atMiddle = rmsError(lag: 0.5, attitude: tumble, error: inclinationError)
    // Measured 2.149° and 0.001°. What is left at the middle: the mean of a turning vector is
    // 0.05 % shorter and tilted by a second-order amount.
    let tolerance = 0.05  // degrees
    XCTAssertEqual(atEnd, 1.5 * 0.5 / rate / degree, accuracy: tolerance)
    XCTAssertLessThan(atMiddle, 0.01)
  }

  /// Turning about the vertical at 1 rad/s: paired with the interval's end, the field seems
  /// turned back by 1 rad/s · 25 ms = 1.4°, and so is the heading.
  func testTurningHeadingUsesTheMiddleOfTheInterval() {
    let turn = { (t: Double) in Quaternion(angle: 1.0 * t, axis: SIMD3(0, 0, 1)) }
    let atEnd = rmsError(lag: 0, attitude: turn, error: totalError)
    let atMiddle = rmsError(lag: 0.5, attitude: turn, error: totalError)
    // Measured 1.432° and below 1e-10°.
    let tolerance = 0.05  // degrees
    XCTAssertEqual(atEnd, 1.0 * 0.5 / rate / degree, accuracy: tolerance)
    XCTAssertLessThan(atMiddle, 0.01)
  }

  /// Tumbling at 1.5 rad/s with no linear acceleration: the user acceleration is zero. Gravity
  /// from the outputs describes the timestamp plus the gyroscope delay, the specific force the
  /// middle of the interval 25 ms before; added unturned they leave g · 1.5 rad/s · 26.75 ms
  /// = 0.39 m/s² of gravity in the result, turned to the same instant nothing but the filter's
  /// own error.
  func testUserAccelerationPairsGravityWithTheSampleInstant() {
    var imu = SyntheticIMU()
    imu.vectorAveragingPoints = 32
    let tumble = { (t: Double) in Quaternion(angle: 1.5 * t, axis: SIMD3(1, 0, 0)) }
    let samples = imu.samples(duration: 30, rate: rate, attitude: tumble)
    var estimator = DeviceMotionEstimator(samplePeriod: 1 / rate)
    var paired = 0.0
    var unpaired = 0.0
    var count = 0.0
    for s in samples {
      estimator.update(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
        magnetometer: s.magnetometer)
      guard s.timestamp >= 20 else { continue }
      paired += estimator.linearAcceleration(specificForce: s.accelerometer).lengthSquared
      unpaired += (s.accelerometer + estimator.gravity).lengthSquared
      let estimate = estimator.estimate(
        timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer)
      // The estimate carries the turned sample, so every consumer pairs it the same way.
      XCTAssertEqual(
        (estimate.accelerometer + estimator.gravity).length,
        estimator.linearAcceleration(specificForce: s.accelerometer).length, accuracy: 1e-12)
      count += 1
    }
    let expectedLeak = Units.standardGravity * 1.5 * (0.5 / rate + 0.5 / 286)  // m/s²
    // Measured: 0.393 m/s² unturned (0.393 expected) and 0.006 m/s² turned.
    let tolerance = 0.01  // m/s²
    XCTAssertEqual((unpaired / count).squareRoot(), expectedLeak, accuracy: tolerance)
    XCTAssertLessThan((paired / count).squareRoot(), tolerance)
  }

  /// One gyroscope sample with the latest accelerometer and magnetometer samples of sensors on
  /// their own clocks.
  private struct HeldInput {
    var gyroscope: SyntheticIMU.Sample
    var accelerometer: SyntheticIMU.Sample
    var magnetometer: SyntheticIMU.Sample
  }

  /// A turning tumble read by a gyroscope at 100 Hz and by an accelerometer and a magnetometer at
  /// 25 Hz on their own clocks (stamped 3 ms and 7 ms after a gyroscope tick, readings averaged
  /// over their intervals): for each gyroscope sample once both others have ticked, the latest
  /// sample of each, as `DeviceMotionFeed` holds them.
  private func ownClockInputs() -> [HeldInput] {
    let motion = { (t: Double) in
      Quaternion(angle: 1.0 * t, axis: SIMD3(0, 0, 1))
        * Quaternion(angle: 1.5 * t, axis: SIMD3(1, 0, 0))
    }
    var gyroscopeIMU = SyntheticIMU()
    let gyroscopeSamples = gyroscopeIMU.samples(duration: 30, rate: 100, attitude: motion)
    var vectorIMU = SyntheticIMU()
    vectorIMU.vectorAveragingPoints = 32
    let accelerometerSamples = vectorIMU.samples(
      duration: 30, rate: 25, start: 0.003, attitude: motion)
    let magnetometerSamples = vectorIMU.samples(
      duration: 30, rate: 25, start: 0.007, attitude: motion)
    var inputs: [HeldInput] = []
    var a = 0
    var m = 0
    for g in gyroscopeSamples {
      while a + 1 < accelerometerSamples.count
        && accelerometerSamples[a + 1].timestamp <= g.timestamp
      {
        a += 1
      }
      while m + 1 < magnetometerSamples.count
        && magnetometerSamples[m + 1].timestamp <= g.timestamp
      {
        m += 1
      }
      guard accelerometerSamples[a].timestamp <= g.timestamp,
        magnetometerSamples[m].timestamp <= g.timestamp
      else { continue }
      inputs.append(
        HeldInput(
          gyroscope: g, accelerometer: accelerometerSamples[a], magnetometer: magnetometerSamples[m]
        ))
    }
    return inputs
  }

  /// A gyroscope at 100 Hz and an accelerometer and a magnetometer at 25 Hz on their own clocks
  /// (stamped 3 ms and 7 ms after a gyroscope tick), each latest sample passed with every
  /// gyroscope sample, as `DeviceMotionFeed` does. Told each sample's own timestamp, the
  /// estimator compares it with the attitude of its instant; not told, it takes a sample up to
  /// 40 ms old for one of the last 10 ms.
  func testSensorsOnTheirOwnClocksArePairedByTheirTimestamps() {
    let inputs = ownClockInputs()
    func rms(toldTimestamps: Bool) -> (total: Double, inclination: Double) {
      var parameters = AttitudeEstimator.Parameters.default
      parameters.gyroscopeDelay = 0
      parameters.magnetometerDelay = 0
      var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: 0.01)
      var total = 0.0
      var inclination = 0.0
      var count = 0.0
      for input in inputs {
        let g = input.gyroscope
        estimator.update(
          timestamp: g.timestamp, gyroscope: g.gyroscope,
          accelerometer: input.accelerometer.accelerometer,
          magnetometer: input.magnetometer.magnetometer,
          accelerometerTimestamp: toldTimestamps ? input.accelerometer.timestamp : nil,
          magnetometerTimestamp: toldTimestamps ? input.magnetometer.timestamp : nil)
        guard g.timestamp >= 20 else { continue }
        let e = totalError(estimator, g.earthFromSensor)
        total += e * e
        let tilt = inclinationError(estimator, g.earthFromSensor)
        inclination += tilt * tilt
        count += 1
      }
      return ((total / count).squareRoot() / degree, (inclination / count).squareRoot() / degree)
    }
    let told = rms(toldTimestamps: true)
    let untold = rms(toldTimestamps: false)
    // Measured: told 0.050° total and 0.047° inclination; not told 1.46° and 0.64°.
    XCTAssertLessThan(told.total, 0.1, "\(told)")
    XCTAssertLessThan(told.inclination, 0.1, "\(told)")
    XCTAssertGreaterThan(untold.total, 10 * told.total, "\(untold) vs \(told)")
  }

  /// The offline estimator takes the same ages from its recording (each reading's age before its
  /// gyroscope sample), in its backward pass too: with a gyroscope at 100 Hz and the accelerometer
  /// and magnetometer at 25 Hz on their own clocks it does as well as the real-time estimator, and
  /// without the ages it does not.
  func testOfflineRecordingsKeepTheReadingsAges() {
    let inputs = ownClockInputs()
    var parameters = AttitudeEstimator.Parameters.default
    parameters.gyroscopeDelay = 0
    parameters.magnetometerDelay = 0
    func rms(withAges: Bool) -> Double {
      var recording = OfflineAttitudeRecording(hasMagnetometer: true)
      for input in inputs {
        let g = input.gyroscope
        XCTAssertTrue(
          recording.append(
            timestamp: g.timestamp, gyroscope: g.gyroscope,
            accelerometer: input.accelerometer.accelerometer,
            magnetometer: input.magnetometer.magnetometer,
            accelerometerAge: withAges ? g.timestamp - input.accelerometer.timestamp : 0,
            magnetometerAge: withAges ? g.timestamp - input.magnetometer.timestamp : 0))
      }
      XCTAssertEqual(recording.hasSensorAges, withAges)
      let attitudes = OfflineAttitudeEstimator.estimate(
        recording, samplePeriod: 0.01, parameters: parameters)
      var sum = 0.0
      var count = 0.0
      for i in 0..<recording.count where recording.timestamp(at: i) >= 10 {
        let e = attitudes[i].angle(to: inputs[i].gyroscope.earthFromSensor)
        sum += e * e
        count += 1
      }
      return (sum / count).squareRoot() / degree
    }
    let withAges = rms(withAges: true)
    let withoutAges = rms(withAges: false)
    // Measured: 0.073° with the ages, 1.36° without.
    XCTAssertLessThan(withAges, 0.15)
    XCTAssertGreaterThan(withoutAges, 10 * withAges)
  }

  /// Turning a vector into axes turned by a rotation: first order for small angles, exact for
  /// large ones (an absurd rate over a long interval must not stretch the vector).
  func testTurnedKeepsTheLengthAtAnyAngle() {
    let v = SIMD3<Double>(1, 0, 0)
    // Axes turned +90° about z: the fixed vector +x now lies along −y.
    let quarter = AttitudeEstimator.turned(v, by: SIMD3(0, 0, .pi / 2))
    XCTAssertEqual(quarter.x, 0, accuracy: 1e-12)
    XCTAssertEqual(quarter.y, -1, accuracy: 1e-12)
    XCTAssertEqual(quarter.length, 1, accuracy: 1e-12)
    // 0.5°: the first-order form, within its second-order error (θ²/2 = 4e-5) of the exact one.
    let small = SIMD3<Double>(0, 0, 0.5 * degree)
    let exact = Quaternion(rotationVector: -small).act(on: v)
    XCTAssertLessThan((AttitudeEstimator.turned(v, by: small) - exact).length, 4e-5)
  }

  /// The magnetometer delay is a time: the heading compares the field with the attitude that
  /// much earlier still. A field 30 ms late, paired as in step with the gyroscope, gives the
  /// heading the rotation of those 30 ms (1.7° at 1 rad/s); with the delay set it does not.
  func testMagnetometerDelayPairsALateField() {
    let turn = { (t: Double) in Quaternion(angle: 1.0 * t, axis: SIMD3(0, 0, 1)) }
    let delay = 0.03
    var imu = SyntheticIMU()
    let samples = imu.samples(duration: 30, rate: 100, attitude: turn)
    let late = imu.samples(duration: 30, rate: 100, start: -delay, attitude: turn)
    func rms(magnetometerDelay: Double) -> Double {
      var parameters = AttitudeEstimator.Parameters.default
      parameters.sampleAveragingLag = 0  // point samples
      parameters.gyroscopeDelay = 0
      parameters.magnetometerDelay = magnetometerDelay
      var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: 0.01)
      var sum = 0.0
      var count = 0
      for (s, l) in zip(samples, late) {
        estimator.update(
          timestamp: s.timestamp, gyroscope: s.gyroscope, accelerometer: s.accelerometer,
          magnetometer: l.magnetometer)
        if s.timestamp >= 20 {
          let e = estimator.earthFromSensor9D.angle(to: s.earthFromSensor)
          sum += e * e
          count += 1
        }
      }
      return (sum / Double(count)).squareRoot() / degree
    }
    // Measured 1.719° and below 1e-10°.
    let tolerance = 0.05  // degrees
    XCTAssertEqual(rms(magnetometerDelay: 0), 1.0 * delay / degree, accuracy: tolerance)
    XCTAssertLessThan(rms(magnetometerDelay: delay), 0.01)
  }
}
