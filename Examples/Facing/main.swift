// SPDX-License-Identifier: Apache-2.0
//
// Facing: a flash card that shows the question, and the answer once the device is turned over.
//
// The iOS app keeps the attitude at start as a reference and compares each device-motion update
// with it; MotionRecognition's FacingDetector does that with hysteresis (turned over past 120°,
// back below 60°), so the card does not flicker while the device is edge-on. Turning back shows
// the next question.

import CoreMotion
import ExampleSupport
import Foundation
import MotionRecognition

final class FacingViewController: ExampleViewController {
  let motionManager = CMMotionManager()
  private let cards = [
    ("What is the capital of France?", "Paris"),
    ("How many g does a phone lying still read?", "1 g, pointing down: (0, 0, −1) face up"),
    ("Which axis points out of the screen?", "+z"),
  ]
  private var cardIndex = 0
  private var facing = FacingDetector()

  func viewDidLoad() {
    show(.front)
    motionManager.deviceMotionUpdateInterval = 1.0 / 50
    if motionManager.isDeviceMotionAvailable {
      motionManager.startDeviceMotionUpdates(to: .main) { [weak self] motion, _ in
        guard let self, let motion else { return }
        self.update(MotionInput(motion))
      }
    } else {
      // Without a gyroscope only turning over (not spinning round) can be seen, from gravity.
      motionManager.startAccelerometerUpdates(to: .main) { [weak self] data, _ in
        guard let self, let data else { return }
        self.update(MotionInput(data))
      }
    }
  }

  func viewDidDisappear() {
    motionManager.stopDeviceMotionUpdates()
    motionManager.stopAccelerometerUpdates()
  }

  private func update(_ input: MotionInput) {
    guard let change = facing.update(input) else { return }
    if change.side == .front { cardIndex = (cardIndex + 1) % cards.count }
    show(change.side)
  }

  private func show(_ side: FacingDetector.Side) {
    let card = cards[cardIndex]
    switch side {
    case .front: print("Question: \(card.0)")
    case .back: print("Answer: \(card.1)")
    }
  }
}

ExampleRunner.show(
  FacingViewController(), usage: "Facing: turn the device over to see the answer.",
  requiring: \.motionManager.isAccelerometerAvailable,
  ifUnavailable: "this source has no accelerometer; set COREMOTION_SOURCE (e.g. simulator:tour)")
