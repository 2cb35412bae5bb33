// SPDX-License-Identifier: Apache-2.0
//
// Gyroscope: the raw rotation rate about each axis, as numbers and bars.
//
// The iOS app shows three labels and three progress bars refreshed by gyroscope updates. Printed
// here four times a second of sensor time.

import CoreMotion
import ExampleSupport
import Foundation

final class GyroscopeViewController: ExampleViewController {
  let motionManager = CMMotionManager()
  private var lastPrinted = -Double.infinity
  /// The bars' full scale, rad/s.
  private let fullScale = 2.0

  func viewDidLoad() {
    motionManager.gyroUpdateInterval = 1.0 / 60
    motionManager.startGyroUpdates(to: .main) { [weak self] data, error in
      guard let self, let data else { return }
      guard data.timestamp - self.lastPrinted >= 0.25 else { return }
      self.lastPrinted = data.timestamp
      let r = data.rotationRate
      let rows = [("x", r.x), ("y", r.y), ("z", r.z)].map { name, value in
        "\(name) \(ExampleRunner.bar(value, range: self.fullScale, width: 15)) \(ExampleRunner.format(value)) rad/s"
      }
      print(rows.joined(separator: "   "))
    }
  }

  func viewDidDisappear() {
    motionManager.stopGyroUpdates()
  }
}

ExampleRunner.show(
  GyroscopeViewController(),
  usage: "Gyroscope: prints the rotation rate about x, y and z with bars.",
  requiring: \.motionManager.isGyroAvailable,
  ifUnavailable: "this source has no gyroscope; set COREMOTION_SOURCE (e.g. simulator:rotateZ)")
