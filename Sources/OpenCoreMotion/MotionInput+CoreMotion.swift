// SPDX-License-Identifier: Apache-2.0

import MotionMath
import MotionRecognition

extension SIMD3 where Scalar == Double {
  /// The vector `(x, y, z)` of a Core Motion acceleration, in g.
  package init(_ acceleration: CMAcceleration) {
    self.init(acceleration.x, acceleration.y, acceleration.z)
  }

  /// The vector `(x, y, z)` of a Core Motion rotation rate, in rad/s.
  package init(_ rotationRate: CMRotationRate) {
    self.init(rotationRate.x, rotationRate.y, rotationRate.z)
  }
}

extension Quaternion {
  /// The rotation of a Core Motion quaternion (`referenceFromDevice`, i.e. `earthFromSensor`).
  package init(_ quaternion: CMQuaternion) {
    self.init(w: quaternion.w, x: quaternion.x, y: quaternion.y, z: quaternion.z)
  }
}

extension MotionInput {
  /// The recogniser input for one device-motion update: its gravity, user acceleration,
  /// attitude and rotation rate, in Core Motion's units.
  public init(_ motion: CMDeviceMotion) {
    self.init(
      timestamp: motion.timestamp, gravity: SIMD3(motion.gravity),
      userAcceleration: SIMD3(motion.userAcceleration),
      attitude: Quaternion(motion.attitude.quaternion),
      rotationRate: SIMD3(motion.rotationRate))
  }

  /// The recogniser input for one accelerometer update (the recognisers separate gravity
  /// themselves).
  public init(_ data: CMAccelerometerData) {
    self.init(timestamp: data.timestamp, acceleration: SIMD3(data.acceleration))
  }
}
