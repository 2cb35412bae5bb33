// SPDX-License-Identifier: Apache-2.0

import MotionDetectors

/// ``StepDetector`` run over a recording's samples as they are read, collecting the step times:
/// what ``StepCount`` is made of, without holding the samples.
///
/// The steps go through a ``RidingStepGate`` fed by an ``ActivityClassifier`` on the same
/// samples, as `CMPedometer` counts them: the steps of a bicycle or vehicle ride are left out.
/// Without the gate (`gate: nil`) the count is the detector's alone.
package struct StepCounter: Sendable {
  private var detector: StepDetector
  private var classifier = ActivityClassifier()
  private var gate: RidingStepGate?
  private var steps: [Double] = []

  package init(
    parameters: StepDetector.Parameters = .default,
    gate gateParameters: RidingStepGate.Parameters? = .default
  ) {
    detector = StepDetector(parameters: parameters)
    gate = gateParameters.map { RidingStepGate(parameters: $0) }
  }

  /// Passes a step the detector found through the gate (if any) and keeps what comes out.
  private mutating func take(_ step: Double) {
    guard gate != nil else { return steps.append(step) }
    gate?.offer(stepTime: step)
    drainGate()
  }

  private mutating func drainGate() {
    while let step = gate?.nextStep() { steps.append(step) }
  }

  /// Feeds one sample: time in s, specific force in m/s² (+9.81 up at rest; converted here, once,
  /// to g with Apple's sign).
  package mutating func add(time: Double, specificForce: SIMD3<Double>) {
    let acceleration = -specificForce / 9.80665
    if let step = detector.process(time: time, acceleration: acceleration) { take(step) }
    guard gate != nil else { return }
    if let estimate = classifier.process(time: time, acceleration: acceleration) {
      gate?.noteActivity(estimate)
      drainGate()
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
    while let step = detector.takeQueuedStep() { take(step) }
    return StepCount(stepTimes: steps, userHeight: userHeight)
  }
}
