// SPDX-License-Identifier: Apache-2.0

import MotionDetectors

/// ``StepDetector`` run over a recording's samples as they are read, collecting the step times:
/// what ``StepCount`` is made of, without holding the samples.
///
/// The steps go through the same ``PedometerTracker`` as `CMPedometer`'s: the steps of a bicycle
/// or vehicle ride are left out. Without the gate (`gate: nil`) the count is the detector's alone,
/// and the activity classifier, which would decide nothing, does not run.
package struct StepCounter: Sendable {
  /// The pedometer's path (detector, classifier, gate); `nil` without the gate.
  private var tracker: PedometerTracker?
  /// The detector alone, without the gate; `nil` with it.
  private var detector: StepDetector?
  private var steps: [Double] = []

  package init(
    parameters: StepDetector.Parameters = .default,
    gate gateParameters: RidingStepGate.Parameters? = .default
  ) {
    if let gateParameters {
      tracker = PedometerTracker(stepParameters: parameters, ridingGate: gateParameters)
    } else {
      detector = StepDetector(parameters: parameters)
    }
  }

  private mutating func takeCountedSteps() {
    while let step = tracker?.nextStep() { steps.append(step) }
  }

  /// Feeds one sample: time in s, specific force in m/s² (+9.81 up at rest; converted here, once,
  /// to g with Apple's sign).
  package mutating func add(time: Double, specificForce: SIMD3<Double>) {
    let acceleration = -specificForce / 9.80665
    if detector != nil {
      if let step = detector?.process(time: time, acceleration: acceleration) {
        steps.append(step)
      }
      return
    }
    tracker?.process(time: time, acceleration: acceleration)
    takeCountedSteps()
  }

  /// Feeds one gyroscope reading: time in s, rotation rate in rad/s (any frame). Optional: it
  /// lets the detector add the steps of a limb's strides that |a| missed
  /// (``StepDetector/process(time:rotationRate:)``).
  package mutating func add(time: Double, rotationRate: SIMD3<Double>) {
    tracker?.process(time: time, rotationRate: rotationRate)
    detector?.process(time: time, rotationRate: rotationRate)
  }

  /// Accelerometer samples the detector left out (``StepDetector/skippedSamples``): a value not
  /// finite or implausibly large, or a timestamp not later than the one before.
  package var refusedSamples: Int { tracker?.skippedSamples ?? detector?.skippedSamples ?? 0 }

  /// The steps found, those still queued at the end included, and their distance.
  package mutating func finish(userHeight: Double? = nil) -> StepCount {
    while let step = detector?.takeQueuedStep() { steps.append(step) }
    while tracker?.flushQueuedStep() != nil { takeCountedSteps() }
    tracker?.finish()
    takeCountedSteps()
    return StepCount(stepTimes: steps, userHeight: userHeight)
  }
}
