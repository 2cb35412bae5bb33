// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The true motion of the simulated device at one instant.
public struct KinematicState: Sendable, Equatable {
  /// Seconds of scenario time.
  public var time: Double
  /// The attitude, sensor to earth (NWU, x = magnetic north).
  public var earthFromSensor: Quaternion
  /// The body angular velocity in rad/s, sensor frame.
  public var angularVelocity: SIMD3<Double>
  /// Position in metres, earth frame, relative to the scenario's origin.
  public var position: SIMD3<Double>
  /// Velocity in m/s, earth frame.
  public var velocity: SIMD3<Double>
  /// Kinematic acceleration (the second derivative of position) in m/s², earth frame.
  public var acceleration: SIMD3<Double>

  /// Creates a state.
  public init(
    time: Double, earthFromSensor: Quaternion, angularVelocity: SIMD3<Double>,
    position: SIMD3<Double>,
    velocity: SIMD3<Double>, acceleration: SIMD3<Double>
  ) {
    self.time = time
    self.earthFromSensor = earthFromSensor
    self.angularVelocity = angularVelocity
    self.position = position
    self.velocity = velocity
    self.acceleration = acceleration
  }

  /// Gravity's acceleration vector in m/s² in the NWU earth frame: (0, 0, −9.80665).
  public static let earthGravity = SIMD3<Double>(0, 0, -Units.standardGravity)

  /// The specific force an ideal accelerometer measures, m/s², sensor frame:
  /// `sensorFromEarth · (p̈ − g)`.
  public var specificForce: SIMD3<Double> {
    earthFromSensor.conjugate.act(on: acceleration - Self.earthGravity)
  }
}
