// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import OpenCoreMotion

/// Starts the raw sensor updates `what` asks for (`raw`: all three) at `interval` seconds and
/// prints one line per update, in Core Motion's units. Returns the count of updates printed so far
/// (read it once the queue is drained), so that a source that ends without a sample is reported
/// rather than ending in silence.
///
/// - Throws: `CLIError` when the source has none of the sensors asked for.
func startRawMonitor(
  _ what: MonitorTarget, manager: CMMotionManager, interval: Double, queue: OperationQueue,
  session: SourceSession
) throws -> Locked<Int> {
  let updates = Locked(0)
  let all = what == .raw
  if all || what == .accelerometer, manager.isAccelerometerAvailable {
    manager.accelerometerUpdateInterval = interval
    manager.startAccelerometerUpdates(to: queue) { data, error in
      session.emit(error)
        ?? data.map {
          updates.withLock { $0 += 1 }
          session.print(
            String(
              format: "%10.3f accelerometer  x %+7.3f  y %+7.3f  z %+7.3f g", $0.timestamp,
              $0.acceleration.x, $0.acceleration.y, $0.acceleration.z))
        }
    }
  }
  if all || what == .gyroscope, manager.isGyroAvailable {
    manager.gyroUpdateInterval = interval
    manager.startGyroUpdates(to: queue) { data, error in
      session.emit(error)
        ?? data.map {
          updates.withLock { $0 += 1 }
          session.print(
            String(
              format: "%10.3f gyroscope      x %+7.3f  y %+7.3f  z %+7.3f rad/s", $0.timestamp,
              $0.rotationRate.x, $0.rotationRate.y, $0.rotationRate.z))
        }
    }
  }
  if all || what == .magnetometer, manager.isMagnetometerAvailable {
    manager.magnetometerUpdateInterval = interval
    manager.startMagnetometerUpdates(to: queue) { data, error in
      session.emit(error)
        ?? data.map {
          updates.withLock { $0 += 1 }
          session.print(
            String(
              format: "%10.3f magnetometer   x %+7.2f  y %+7.2f  z %+7.2f µT", $0.timestamp,
              $0.magneticField.x, $0.magneticField.y, $0.magneticField.z))
        }
    }
  }
  guard manager.isAccelerometerActive || manager.isGyroActive || manager.isMagnetometerActive
  else {
    throw CLIError("\(manager.source.name) has no \(all ? "sensors" : what.rawValue)")
  }
  return updates
}

/// Starts device-motion updates (arbitrary frame, Z vertical) at `interval` seconds and prints
/// attitude, gravity and user acceleration once per update. Returns the count of updates printed
/// so far (read it once the queue is drained), so that a source whose every sample the estimator
/// refused is reported rather than ending in silence.
///
/// - Throws: `CLIError` when the source lacks the accelerometer or the gyroscope.
func startDeviceMotionMonitor(
  manager: CMMotionManager, interval: Double, queue: OperationQueue, session: SourceSession
) throws -> Locked<Int> {
  let updates = Locked(0)
  guard manager.isDeviceMotionAvailable else {
    throw CLIError(
      "\(manager.source.name) has no accelerometer and gyroscope: device motion is not available")
  }
  manager.deviceMotionUpdateInterval = interval
  manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { motion, error in
    session.emit(error)
      ?? motion.map {
        updates.withLock { $0 += 1 }
        session.print(
          String(
            format:
              "%10.3f attitude r %+7.1f° p %+7.1f° y %+7.1f°  gravity %+6.3f %+6.3f %+6.3f g  user %+6.3f %+6.3f %+6.3f g",
            $0.timestamp, $0.attitude.roll * 180 / .pi, $0.attitude.pitch * 180 / .pi,
            $0.attitude.yaw * 180 / .pi,
            $0.gravity.x, $0.gravity.y, $0.gravity.z, $0.userAcceleration.x,
            $0.userAcceleration.y, $0.userAcceleration.z))
      }
  }
  return updates
}
