// SPDX-License-Identifier: Apache-2.0

extension MotionSample {
  /// Copies into this sample every value `other` has and this one lacks.
  mutating func absorb(_ other: MotionSample) {
    accelerometer = accelerometer ?? other.accelerometer
    gyroscope = gyroscope ?? other.gyroscope
    magnetometer = magnetometer ?? other.magnetometer
    pressure = pressure ?? other.pressure
    temperature = temperature ?? other.temperature
    guard let theirs = other.groundTruth else { return }
    guard var truth = groundTruth else {
      groundTruth = theirs
      return
    }
    truth.earthFromSensor = truth.earthFromSensor ?? theirs.earthFromSensor
    truth.angularVelocity = truth.angularVelocity ?? theirs.angularVelocity
    truth.gyroscopeBias = truth.gyroscopeBias ?? theirs.gyroscopeBias
    truth.gravity = truth.gravity ?? theirs.gravity
    truth.linearAcceleration = truth.linearAcceleration ?? theirs.linearAcceleration
    truth.position = truth.position ?? theirs.position
    truth.isMovementPhase = truth.isMovementPhase ?? theirs.isMovementPhase
    groundTruth = truth
  }
}
