// SPDX-License-Identifier: Apache-2.0

import MotionDetectors

/// ``StepDetector`` run over a recording's samples as they are read, collecting the step times:
/// what ``StepCount`` is made of, without holding the samples.
///
/// The steps go through the same ``PedometerTracker`` as `CMPedometer`'s: the steps of a bicycle
/// or vehicle ride are left out. Without the gate (`gate: nil`) the count is the detector's alone
/// (the classifier still runs; it decides nothing).
package struct StepCounter: Sendable {
  private var tracker: PedometerTracker
  private var steps: [Double] = []

  package init(
    parameters: StepDetector.Parameters = .default,
    gate gateParameters: RidingStepGate.Parameters? = .default
  ) {
    tracker = PedometerTracker(stepParameters: parameters, ridingGate: gateParameters)
  }

  private mutating func takeCountedSteps() {
    while let step = tracker.nextStep() { steps.append(step) }
  }

  /// Feeds one sample: time in s, specific force in m/s² (+9.81 up at rest; converted here, once,
  /// to g with Apple's sign).
  package mutating func add(time: Double, specificForce: SIMD3<Double>) {
    tracker.process(time: time, acceleration: -specificForce / 9.80665)
    takeCountedSteps()
  }

  /// Feeds one gyroscope reading: time in s, rotation rate in rad/s (any frame). Optional: it
  /// lets the detector add the steps of a limb's strides that |a| missed
  /// (``StepDetector/process(time:rotationRate:)``).
  package mutating func add(time: Double, rotationRate: SIMD3<Double>) {
    tracker.process(time: time, rotationRate: rotationRate)
  }

  /// The steps found, those still queued at the end included, and their distance.
  package mutating func finish(userHeight: Double? = nil) -> StepCount {
    while tracker.flushQueuedStep() != nil { takeCountedSteps() }
    tracker.finish()
    takeCountedSteps()
    return StepCount(stepTimes: steps, userHeight: userHeight)
  }
}
