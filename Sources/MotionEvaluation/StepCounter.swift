// SPDX-License-Identifier: Apache-2.0

import MotionDetectors

/// ``StepDetector`` run over a recording's samples as they are read, collecting the step times:
/// what ``StepCount`` is made of, without holding the samples.
package struct StepCounter: Sendable {
  private var detector: StepDetector
  private var steps: [Double] = []

  package init(parameters: StepDetector.Parameters = .default) {
    detector = StepDetector(parameters: parameters)
  }

  /// Feeds one sample: time in s, specific force in m/s² (+9.81 up at rest; converted here, once,
  /// to g with Apple's sign).
  package mutating func add(time: Double, specificForce: SIMD3<Double>) {
    if let step = detector.process(time: time, acceleration: -specificForce / 9.80665) {
      steps.append(step)
    }
  }

  /// Feeds one gyroscope reading: time in s, rotation rate in rad/s (any frame). Optional: it
  /// lets the detector add the steps of a limb's strides that |a| missed
  /// (``StepDetector/process(time:rotationRate:)``).
  package mutating func add(time: Double, rotationRate: SIMD3<Double>) {
    detector.process(time: time, rotationRate: rotationRate)
  }

  /// The steps found, those still queued at the end included, and their distance.
  package mutating func finish(userHeight: Double? = nil) -> StepCount {
    while let step = detector.takeQueuedStep() { steps.append(step) }
    return StepCount(stepTimes: steps, userHeight: userHeight)
  }
}
