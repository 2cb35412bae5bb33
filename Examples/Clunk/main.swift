// SPDX-License-Identifier: Apache-2.0
//
// Clunk: knock the device's left edge into your palm to go back a page.
//
// The iOS app watches device motion for a sharp spike along x and, when the left edge was struck,
// plays a "clunk" and navigates back. The spike test is MotionRecognition's TapDetector, fed from
// the device-motion handler; a rate limiter keeps one knock from going back twice.

import CoreMotion
import ExampleSupport
import Foundation
import MotionRecognition

final class ClunkViewController: ExampleViewController {
  let motionManager = CMMotionManager()
  private var pages = ["Home", "News", "Article 1", "Article 2", "Comments"]
  private var knocks = TapDetector(parameters: .init(axes: [.x]))
  private var limiter = RateLimiter(minimumInterval: 0.5)

  func viewDidLoad() {
    print("Page: \(pages.last!)")
    motionManager.deviceMotionUpdateInterval = 0.01
    let handler: CMDeviceMotionHandler = { [weak self] motion, _ in
      guard let self, let motion else { return }
      self.check(MotionInput(motion))
    }
    if motionManager.isDeviceMotionAvailable {
      motionManager.startDeviceMotionUpdates(to: .main, withHandler: handler)
    } else {
      // Without a gyroscope, the detector separates gravity from the raw accelerometer itself.
      motionManager.startAccelerometerUpdates(to: .main) { [weak self] data, _ in
        guard let self, let data else { return }
        self.check(MotionInput(data))
      }
    }
  }

  func viewDidDisappear() {
    motionManager.stopDeviceMotionUpdates()
    motionManager.stopAccelerometerUpdates()
  }

  private func check(_ input: MotionInput) {
    guard let knock = knocks.update(input), knock.struckSide == .left,
      limiter.allow(at: knock.timestamp)
    else { return }
    if pages.count > 1 {
      pages.removeLast()
      print(String(format: "Clunk! (%.1f g) Back to: %@", knock.peak.length, pages.last!))
    } else {
      print("Clunk! Already at the first page.")
    }
  }
}

ExampleRunner.show(
  ClunkViewController(), usage: "Clunk: knock the left edge into your palm to go back a page.",
  requiring: \.motionManager.isAccelerometerAvailable,
  ifUnavailable: "this source has no accelerometer; set COREMOTION_SOURCE (e.g. simulator:tap)")
