// SPDX-License-Identifier: Apache-2.0

import MotionDetectors

/// Steps and distance counted in one recording by ``StepDetector`` and ``StrideModel``, as the
/// pedometer counts them (through a ``RidingStepGate``, see ``StepCounter``).
package struct StepCount: Sendable, Equatable {
  /// Times of the detected steps, s, in the recording's time base.
  package var stepTimes: [Double]
  /// Distance, m: each step's length from the stride model at the cadence of its bout.
  package var distance: Double

  /// Runs the detector over a whole recording, sample by sample as a live source would.
  ///
  /// - Parameters:
  ///   - times: sample times, s.
  ///   - accelerations: specific force, m/s² (converted here to g with Apple's sign).
  ///   - userHeight: the walker's height, m, for the stride model.
  ///   - gate: the riding gate's parameters; `nil` counts the detector's steps alone.
  package init(
    times: [Double], accelerations: [SIMD3<Double>], parameters: StepDetector.Parameters = .default,
    userHeight: Double? = nil, gate: RidingStepGate.Parameters? = .default
  ) {
    var counter = StepCounter(parameters: parameters, gate: gate)
    for (time, force) in zip(times, accelerations) { counter.add(time: time, specificForce: force) }
    self = counter.finish(userHeight: userHeight)
  }

  /// The count of the steps at `stepTimes` (s), with the distance the stride model gives them.
  package init(stepTimes: [Double], userHeight: Double? = nil) {
    self.stepTimes = stepTimes
    distance = Self.distance(of: stepTimes, model: StrideModel(userHeight: userHeight))
  }

  /// Floors walked up and down, from barometer readings (time s, pressure kPa) and the detected
  /// steps (``FloorCounter``: only changes walked on foot count), or `nil` without readings or
  /// when the counter refused every one (outside ``BarometricAltitude/plausiblePressureRange``).
  package func floors(
    pressures: [(time: Double, pressure: Double)]
  ) -> (ascended: Int, descended: Int)? {
    guard !pressures.isEmpty else { return nil }
    var floors = WalkedFloors(stepTimes: stepTimes)
    for reading in pressures { floors.add(time: reading.time, pressure: reading.pressure) }
    return floors.result
  }

  /// The steps counted inside `window` (both ends included), as the ground truth counts them.
  package func steps(in window: ClosedRange<Double>) -> Int {
    stepTimes.reduce(0) { $0 + (window.contains($1) ? 1 : 0) }
  }

  /// Distance of the steps inside `window`, m.
  package func distance(in window: ClosedRange<Double>, userHeight: Double?) -> Double {
    Self.distance(
      of: stepTimes.filter { window.contains($0) }, model: StrideModel(userHeight: userHeight))
  }

  /// Sum of step lengths, each at its cadence as the pedometer measures it live
  /// (``StepCadence``), so that a file gives the distance `CMPedometer` would.
  package static func distance(of steps: [Double], model: StrideModel) -> Double {
    var cadence = StepCadence(strideModel: model)
    return steps.reduce(0) { $0 + cadence.noteStep(at: $1).length }
  }
}
