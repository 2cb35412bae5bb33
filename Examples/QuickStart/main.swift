// SPDX-License-Identifier: Apache-2.0
//
// QuickStart: the iOS-style program shown in the README, verbatim, so that the README's promise
// ("runs unchanged on Linux") is compiled and tested. Try it with
// `COREMOTION_SOURCE=simulator swift run QuickStartExample`.

import CoreMotion
import Foundation

let manager = CMMotionManager()
let queue = OperationQueue()

guard manager.isDeviceMotionAvailable else {
  print("no device motion on this machine: try COREMOTION_SOURCE=simulator")
  exit(1)
}
manager.deviceMotionUpdateInterval = 1.0 / 30.0
manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { motion, error in
  guard let motion else { return print("error:", error!) }
  let a = motion.attitude
  print(
    String(
      format: "roll %6.1f°  pitch %6.1f°  yaw %6.1f°  gravity z %+.2f g",
      a.roll * 180 / .pi, a.pitch * 180 / .pi, a.yaw * 180 / .pi, motion.gravity.z))
}
Thread.sleep(forTimeInterval: 5)
manager.stopDeviceMotionUpdates()
