// SPDX-License-Identifier: Apache-2.0

import MotionMath
import _MotionTestSupport

/// Builds exact sensor readings for a known attitude trajectory (test-only): gyroscope from the
/// attitude change, specific force from gravity and a known linear acceleration, and a field from
/// a known earth field through optional hard/soft iron.
struct SyntheticIMU {
  /// Earth field in NWU, µT (north 20 µT, down 40 µT: dip about 63°).
  var earthField = SIMD3<Double>(20, 0, -40)
  var gyroscopeBias = SIMD3<Double>.zero
  var hardIron = SIMD3<Double>.zero
  /// Rows of the soft-iron matrix.
  var softIron = (SIMD3<Double>(1, 0, 0), SIMD3<Double>(0, 1, 0), SIMD3<Double>(0, 0, 1))
  var gyroscopeNoise = 0.0
  var accelerometerNoise = 0.0
  var magnetometerNoise = 0.0
  /// When above 1, the accelerometer and magnetometer report the mean of this many readings
  /// spread evenly over the interval ending at each timestamp, as a sensor averaging over its
  /// reading interval does; 1 reads them at the timestamp.
  var vectorAveragingPoints = 1
  var rng = SplitMix64(seed: 1)

  struct Sample {
    var timestamp: Double
    var gyroscope: SIMD3<Double>
    var accelerometer: SIMD3<Double>
    var magnetometer: SIMD3<Double>
    var earthFromSensor: Quaternion
  }

  mutating func noise(_ sigma: Double) -> SIMD3<Double> {
    guard sigma > 0 else { return .zero }
    return sigma * SIMD3(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian())
  }

  /// Samples at `rate` Hz for `duration` s along `attitude(t)` with linear acceleration
  /// `acceleration(t)` (earth frame, m/s²).
  mutating func samples(
    duration: Double, rate: Double, start: Double = 0,
    attitude: (Double) -> Quaternion,
    acceleration: (Double) -> SIMD3<Double> = { _ in .zero }
  ) -> [Sample] {
    let dt = 1 / rate
    var result: [Sample] = []
    let count = Int(duration * rate)
    for k in 0..<count {
      let t = start + Double(k) * dt
      let q = attitude(t)
      // Rate over the interval ending at t (the estimator's convention).
      let previous = attitude(t - dt)
      let omega = (previous.conjugate * q).canonicalized.rotationVector / dt
      var specificForce = SIMD3<Double>.zero
      var fieldInSensor = SIMD3<Double>.zero
      let points = Swift.max(1, vectorAveragingPoints)
      for point in 0..<points {
        // Readings at the middles of `points` equal parts of the interval (t itself for one).
        let instant = points == 1 ? t : t - dt + (Double(point) + 0.5) * dt / Double(points)
        let sensorFromEarth = attitude(instant).conjugate
        specificForce +=
          sensorFromEarth.act(on: acceleration(instant) + SIMD3(0, 0, Units.standardGravity))
          / Double(points)
        fieldInSensor += sensorFromEarth.act(on: earthField) / Double(points)
      }
      let distorted =
        SIMD3(
          (softIron.0 * fieldInSensor).sum(), (softIron.1 * fieldInSensor).sum(),
          (softIron.2 * fieldInSensor).sum()) + hardIron
      result.append(
        Sample(
          timestamp: t, gyroscope: omega + gyroscopeBias + noise(gyroscopeNoise),
          accelerometer: specificForce + noise(accelerometerNoise),
          magnetometer: distorted + noise(magnetometerNoise), earthFromSensor: q))
    }
    return result
  }
}

/// A tumbling attitude that visits many orientations: rotation about a slowly turning axis.
func tumblingAttitude(_ t: Double) -> Quaternion {
  let a = Quaternion(angle: 0.9 * t, axis: SIMD3(0, 0, 1))
  let b = Quaternion(angle: 1.4 * Double.sin(0.31 * t), axis: SIMD3(1, 0, 0))
  let c = Quaternion(angle: 0.5 * t, axis: SIMD3(0, 1, 0))
  return (a * b * c).normalized
}
