// SPDX-License-Identifier: Apache-2.0
//
// Motion: raw accelerometer and gyroscope next to the fused device motion.
//
// The iOS app starts the raw services and device motion side by side and shows both, to teach
// that `acceleration ≈ gravity + userAcceleration` and that device motion's rotation rate has its
// bias removed. Printed here twice a second of sensor time.

import CoreMotion
import ExampleSupport
import Foundation

/// `(x, y, z)` with signs and two decimals.
func triple(_ x: Double, _ y: Double, _ z: Double) -> String {
  "(" + ExampleRunner.format(x) + "," + ExampleRunner.format(y) + "," + ExampleRunner.format(z)
    + ")"
}

final class MotionViewController: ExampleViewController {
  let motionManager = CMMotionManager()
  private var latestAccelerometer: CMAccelerometerData?
  private var latestGyro: CMGyroData?
  private var lastPrinted = -Double.infinity

  func viewDidLoad() {
    motionManager.accelerometerUpdateInterval = 0.01
    motionManager.gyroUpdateInterval = 0.01
    motionManager.deviceMotionUpdateInterval = 0.01
    motionManager.startAccelerometerUpdates(to: .main) { [weak self] data, _ in
      self?.latestAccelerometer = data
    }
    motionManager.startGyroUpdates(to: .main) { [weak self] data, _ in
      self?.latestGyro = data
    }
    motionManager.startDeviceMotionUpdates(to: .main) { [weak self] motion, _ in
      guard let self, let motion else { return }
      self.deviceMotionDidUpdate(motion)
    }
  }

  func viewDidDisappear() {
    motionManager.stopDeviceMotionUpdates()
    motionManager.stopGyroUpdates()
    motionManager.stopAccelerometerUpdates()
  }

  private func deviceMotionDidUpdate(_ motion: CMDeviceMotion) {
    guard motion.timestamp - lastPrinted >= 0.5, let raw = latestAccelerometer,
      let gyro = latestGyro
    else { return }
    lastPrinted = motion.timestamp
    let g = motion.gravity
    let u = motion.userAcceleration
    let fused = CMAcceleration(x: g.x + u.x, y: g.y + u.y, z: g.z + u.z)
    let a = raw.acceleration
    let dx = a.x - fused.x
    let dy = a.y - fused.y
    let dz = a.z - fused.z
    let difference = (dx * dx + dy * dy + dz * dz).squareRoot()
    let degrees = 180 / Double.pi
    let attitude = motion.attitude
    var line = String(format: "t=%7.2f", motion.timestamp)
    line += "  raw acc " + triple(a.x, a.y, a.z) + " g"
    line += "  gravity+user " + triple(fused.x, fused.y, fused.z) + " g"
    line += String(format: "  |diff| %.3f g", difference)
    line += "  raw gyro " + triple(gyro.rotationRate.x, gyro.rotationRate.y, gyro.rotationRate.z)
    line +=
      "  rate " + triple(motion.rotationRate.x, motion.rotationRate.y, motion.rotationRate.z)
      + " rad/s"
    line += String(
      format: "  roll %+.1f pitch %+.1f yaw %+.1f deg", attitude.roll * degrees,
      attitude.pitch * degrees,
      attitude.yaw * degrees)
    print(line)
  }
}

ExampleRunner.show(
  MotionViewController(), usage: "Motion: raw sensor readings next to fused device motion.",
  requiring: \.motionManager.isDeviceMotionAvailable,
  ifUnavailable:
    "this source has no device motion (needs accelerometer and gyroscope); set COREMOTION_SOURCE")
