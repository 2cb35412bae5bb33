// SPDX-License-Identifier: Apache-2.0
//
// MovementReporter: prints the direction of each sharp move of the device.
//
// The naive app reports the direction of the largest force, which is wrong whenever a move is
// stopped harder than it was started. MotionRecognition's MovementDirectionDetector follows the
// whole move instead (the start force points the way the device goes, the stop force against it).
// Directions are in device axes: right/left along x, up/down along y (towards the top edge),
// forward = into the screen, back = out of it.

import CoreMotion
import ExampleSupport
import Foundation
import MotionRecognition

final class MovementReporterViewController: ExampleViewController {
  let motionManager = CMMotionManager()
  private var moves = MovementDirectionDetector()

  func viewDidLoad() {
    motionManager.deviceMotionUpdateInterval = 0.01
    if motionManager.isDeviceMotionAvailable {
      motionManager.startDeviceMotionUpdates(to: .main) { [weak self] motion, _ in
        guard let self, let motion else { return }
        self.report(MotionInput(motion))
      }
    } else {
      motionManager.startAccelerometerUpdates(to: .main) { [weak self] data, _ in
        guard let self, let data else { return }
        self.report(MotionInput(data))
      }
    }
  }

  func viewDidDisappear() {
    motionManager.stopDeviceMotionUpdates()
    motionManager.stopAccelerometerUpdates()
  }

  private func report(_ input: MotionInput) {
    guard let move = moves.update(input) else { return }
    print(
      String(
        format: "Moved %@ (start %.2f g, stop %.2f g, peak speed %.2f m/s)",
        move.direction.rawValue,
        move.startPeak.length, move.stopPeak.length, move.peakSpeed * 9.80665))
  }
}

ExampleRunner.show(
  MovementReporterViewController(),
  usage: "MovementReporter: prints the direction of each sharp move.",
  requiring: \.motionManager.isAccelerometerAvailable,
  ifUnavailable: "this source has no accelerometer; set COREMOTION_SOURCE")
