// SPDX-License-Identifier: Apache-2.0

/// How a stream's inertial samples were taken, which the fusion needs to place them in time.
public enum SampleTiming: Sendable, Equatable {
  /// Sensor outputs (the default): each gyroscope reading is its sensor's mean rate over the
  /// interval before its timestamp, as a MEMS gyroscope's output filter delivers it.
  case sensorOutputs
  /// Core Motion's device-motion outputs (`rotationRate`, `gravity + userAcceleration`):
  /// instants computed together for one timestamp, as iPhone logging apps record them when the
  /// raw sensors are not logged (MotionSense's `A_DeviceMotion_data`, a SensorLog log of device
  /// motion alone).
  case deviceMotionInstants
}
