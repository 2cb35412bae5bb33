// SPDX-License-Identifier: Apache-2.0

import MotionDetectors
import MotionSensors

/// Steps, cadence, pace, floors, activity and relative altitude for the dashboard, computed here
/// from the `MotionDetectors` types on the accelerometer and barometer streams: the same pedometer
/// tracker (steps, riding gate, activity) and barometer tracker as `CMPedometer`,
/// `CMMotionActivityManager` and `CMAltimeter`, so the page shows what an app would read.
///
/// This is the one place that knows where these values come from; the feed reads only the
/// ``PedometerSnapshot`` and the events.
package struct PedometerAdapter: Sendable {
  /// Without a step reported for this long the user is not walking: cadence and pace become
  /// `nil`, s (the rule of `CMPedometer`'s pause events).
  package static let walkingTimeout = 2.0

  /// Steps (a ride's left out, as the pedometer does) and the activity (``PedometerTracker``).
  private var pedometer = PedometerTracker()
  /// Relative altitude and walked floors (``BarometerTracker``).
  private var barometer = BarometerTracker()
  /// Barometer readings refused (outside 1–200 kPa, or not finite): left out of the plots too.
  package var refusedPressureReadings: Int { barometer.refusedReadings }
  /// Each step's cadence and length: the rule `CMPedometer` applies.
  private var stepCadence = StepCadence()
  /// When the last step was reported (the reading that gave it), s. Steps come out after they
  /// happen (the accelerometer's up to about 2 s, a limb's strides 3.5–7.5 s late): judged from
  /// the step's own time, cadence and pace blinked out on the simulated stairs for 6.5 s in all.
  private var lastStepReport = -Double.infinity
  package private(set) var snapshot = PedometerSnapshot()

  package init() {}

  /// Feeds one accelerometer reading (g, gravity included, Apple's sign) at `time` (s) and returns
  /// the events it produced (a step, an activity change).
  package mutating func process(time: Double, acceleration: SIMD3<Double>) -> [DashboardEvent] {
    var events: [DashboardEvent] = []
    if let estimate = pedometer.process(time: time, acceleration: acceleration).activity {
      snapshot.activity = Self.name(of: estimate)
      snapshot.confidence = Self.name(of: estimate.confidence)
      events.append(DashboardEvent(time: time, kind: "activity", detail: snapshot.activity))
    }
    while let stepTime = pedometer.nextStep() {
      lastStepReport = time
      noteStep(at: stepTime)
      events.append(DashboardEvent(time: stepTime, kind: "step", detail: String(snapshot.steps)))
    }
    if time - lastStepReport >= Self.walkingTimeout {
      snapshot.cadence = nil
      snapshot.pace = nil
    }
    return events
  }

  /// Feeds one gyroscope reading (rad/s): the step detector adds the steps of a limb's strides
  /// that the accelerometer missed (``StepDetector/process(time:rotationRate:)``).
  package mutating func process(time: Double, rotationRate: SIMD3<Double>) {
    pedometer.process(time: time, rotationRate: rotationRate)
  }

  /// Feeds one pressure reading (kPa) and returns the floor events it completed: climbed or
  /// descended on foot (``FloorCounter``), one event per floor. `nil` when the reading is refused
  /// (outside 1–200 kPa, not finite: ``BarometerTracker/refusedReadings`` counts it).
  package mutating func process(time: Double, pressure: Double) -> [DashboardEvent]? {
    guard let reading = barometer.process(time: time, pressure: pressure) else { return nil }
    // The pair `CMAltimeter` reports: the smoothed pressure and its height since the first.
    snapshot.pressure = reading.pressure
    snapshot.relativeAltitude = reading.altitude
    guard let floors = reading.floors else { return [] }
    snapshot.floorsAscended = barometer.floorsAscended
    snapshot.floorsDescended = barometer.floorsDescended
    // Stamped when they were walked (earlier than this reading for floors that late steps
    // showed to be walked), as steps given back late are.
    return Array(
      repeating: DashboardEvent(time: floors.time, kind: "floor", detail: "up"),
      count: floors.ascended)
      + Array(
        repeating: DashboardEvent(time: floors.time, kind: "floor", detail: "down"),
        count: floors.descended)
  }

  private mutating func noteStep(at time: Double) {
    barometer.noteStep(time: time)
    snapshot.steps += 1
    let step = stepCadence.noteStep(at: time)
    snapshot.distance += step.length
    // A bout's first step has no cadence yet: the previous values stay until the walking
    // timeout clears them.
    guard let cadence = step.cadence else { return }
    snapshot.cadence = cadence
    snapshot.pace = step.length > 0 && cadence > 0 ? 1 / (step.length * cadence) : nil
  }

  private static func name(of estimate: ActivityEstimate) -> String {
    if estimate.automotive { return "automotive" }
    if estimate.cycling { return "cycling" }
    if estimate.running { return "running" }
    if estimate.walking { return "walking" }
    if estimate.stationary { return "stationary" }
    return "unknown"
  }

  private static func name(of confidence: ActivityEstimate.Confidence) -> String {
    switch confidence {
    case .low: return "low"
    case .medium: return "medium"
    case .high: return "high"
    }
  }
}
