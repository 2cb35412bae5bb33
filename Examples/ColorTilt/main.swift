// SPDX-License-Identifier: Apache-2.0
//
// ColorTilt: a sharp jolt changes the screen's colour; tilting the device fades it.
//
// The classic app reads the raw accelerometer and splits it with two filters: a high-pass keeps
// the jolts (a new colour when one exceeds 1 g, at most twice a second), a low-pass keeps gravity,
// whose tilt away from face-up sets the transparency (opaque when flat, clear when upright).
// Printed here: each colour change, and the transparency whenever it moves by a tenth.

import CoreMotion
import ExampleSupport
import Foundation
import MotionRecognition

final class ColorTiltViewController: ExampleViewController {
  let motionManager = CMMotionManager()
  private let palette = ["red", "orange", "yellow", "green", "blue", "purple"]
  private var colourIndex = 0
  private var alphaStep = -1
  private var jolts: FirstOrderHighPassFilter<SIMD3<Double>>
  private var gravity: FirstOrderLowPassFilter<SIMD3<Double>>
  private var limiter = RateLimiter(minimumInterval: 0.5)
  private var lastTimestamp: Double?

  init() {
    motionManager.accelerometerUpdateInterval = 1.0 / 60
    let rate = 1 / motionManager.accelerometerUpdateInterval
    // Jolts last tens of milliseconds; 5 Hz removes gravity and slow hand movement.
    jolts = FirstOrderHighPassFilter(cutoffFrequency: 5, sampleRate: rate, adaptive: .default)
    // Tilt should follow a turn within a fraction of a second but ignore the jolts.
    gravity = FirstOrderLowPassFilter(cutoffFrequency: 1.5, sampleRate: rate, adaptive: .default)
  }

  func viewDidLoad() {
    print("Colour: \(palette[colourIndex])")
    motionManager.startAccelerometerUpdates(to: .main) { [weak self] data, error in
      guard let self, let data else { return }
      self.accelerometerDidUpdate(data)
    }
  }

  func viewDidDisappear() {
    motionManager.stopAccelerometerUpdates()
  }

  private func accelerometerDidUpdate(_ data: CMAccelerometerData) {
    let a = SIMD3(data.acceleration)
    let period =
      lastTimestamp.map { data.timestamp - $0 } ?? motionManager.accelerometerUpdateInterval
    lastTimestamp = data.timestamp
    let jolt = jolts.update(a, samplePeriod: period)
    let g = gravity.update(a, samplePeriod: period)
    if jolt.length > 1, limiter.allow(at: data.timestamp) {
      colourIndex = (colourIndex + 1) % palette.count
      print(String(format: "Colour: %@ (jolt %.1f g)", palette[colourIndex], jolt.length))
    }
    // Tilt from face-up: 0 when flat, π/2 upright; the view fades as the device stands up.
    let tilt = Double.acos(Swift.max(-1, Swift.min(1, -g.z / Swift.max(g.length, 1e-9))))
    let alpha = Swift.max(0, 1 - tilt / (Double.pi / 2))
    let step = Int((alpha * 10).rounded())
    if step != alphaStep {
      alphaStep = step
      print(String(format: "Alpha: %.1f", Double(step) / 10))
    }
  }
}

ExampleRunner.show(
  ColorTiltViewController(),
  usage: "ColorTilt: jolts change the colour, tilt sets the transparency.",
  requiring: \.motionManager.isAccelerometerAvailable,
  ifUnavailable: "this source has no accelerometer; set COREMOTION_SOURCE (e.g. simulator:tour)")
