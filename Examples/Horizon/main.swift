// SPDX-License-Identifier: Apache-2.0
//
// Horizon: a line that stays level with the real horizon however the device is held.
//
// The iOS app rotates a horizon view by the angle of gravity in the screen plane and shifts it by
// how far the screen leans back, from device-motion gravity. Printed here: the rotation to apply
// to the line (degrees, counter-clockwise positive) and the lean, whenever either changes by 5°,
// or "flat" when the screen faces straight up or down and the horizon is off screen.

import CoreMotion
import ExampleSupport
import Foundation

final class HorizonViewController: ExampleViewController {
  let motionManager = CMMotionManager()
  private var shown: (rotation: Int, lean: Int)?
  private var isFlat = false

  func viewDidLoad() {
    motionManager.deviceMotionUpdateInterval = 1.0 / 30
    motionManager.startDeviceMotionUpdates(to: .main) { [weak self] motion, _ in
      guard let self, let motion else { return }
      self.gravityDidChange(motion.gravity)
    }
  }

  func viewDidDisappear() {
    motionManager.stopDeviceMotionUpdates()
  }

  private func gravityDidChange(_ g: CMAcceleration) {
    let degrees = 180 / Double.pi
    // Gravity's direction within the screen plane. Upright in portrait it points to −y and the
    // line is drawn unrotated; the line must turn opposite to the device to stay level.
    let inPlane = (g.x * g.x + g.y * g.y).squareRoot()
    if inPlane < 0.26 {  // within 15° of flat: no horizon to draw
      if !isFlat {
        isFlat = true
        shown = nil
        print("Horizon: flat (screen facing \(g.z < 0 ? "up" : "down"))")
      }
      return
    }
    isFlat = false
    let rotation = Double.atan2(g.x, -g.y) * degrees
    // How far the screen leans back from upright (positive: screen tilted towards the sky).
    let lean = Double.atan2(-g.z, inPlane) * degrees
    let rounded = (rotation: Int((rotation / 5).rounded()) * 5, lean: Int((lean / 5).rounded()) * 5)
    if let shown, shown == rounded { return }
    shown = rounded
    print("Horizon: rotate \(rounded.rotation)°, lean \(rounded.lean)°")
  }
}

ExampleRunner.show(
  HorizonViewController(), usage: "Horizon: prints how to rotate a horizon line so it stays level.",
  requiring: \.motionManager.isDeviceMotionAvailable,
  ifUnavailable: "this source has no device motion; set COREMOTION_SOURCE (e.g. simulator:tour)")
