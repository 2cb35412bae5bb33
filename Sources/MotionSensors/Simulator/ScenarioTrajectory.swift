// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The smooth motion a ``Scenario`` describes: attitude and position as functions of time, with
/// exact angular velocity and acceleration, and the annotated events.
///
/// Each segment is a closed-form function of its local time (eased slerps, windowed sinusoids,
/// piecewise polynomials) whose derivatives are carried along analytically, so the gyroscope and
/// accelerometer the simulator derives are consistent with the attitude and position to rounding
/// error. Segments start and end at rest, which makes position C² and attitude C¹ across joins.
public struct ScenarioTrajectory: Sendable {
  /// The length in seconds.
  public let duration: Double
  /// The annotated events, in start order, inside `[0, duration]`.
  public let events: [ScenarioEvent]

  private let initialAttitude: Quaternion
  private let segments: [TrajectorySegment]
  private let startTimes: [Double]

  /// Lays out `scenario`'s segments (repeating them or resting after them to fill its duration).
  ///
  /// The scenario should be valid (``Scenario/validate()``); otherwise its duration is clamped to
  /// `[0, Scenario.maximumDuration]`, unusable segments (no length, or a parameter outside the
  /// ranges listed on ``ScenarioSegment``) are skipped, and after
  /// ``Scenario/maximumSegmentCount`` segments one rest fills the remaining time: the layout's work
  /// and memory are bounded whatever the values.
  public init(scenario: Scenario) {
    let requested = scenario.effectiveDuration
    let total =
      requested.isFinite ? Swift.min(Swift.max(requested, 0), Scenario.maximumDuration) : 0
    duration = total
    initialAttitude = scenario.initialAttitude.earthFromSensor
    var built: [TrajectorySegment] = []
    var events: [ScenarioEvent] = []
    var attitude = scenario.initialAttitude.earthFromSensor
    var position = SIMD3<Double>.zero
    var time = 0.0
    let usable = scenario.segments.map { $0.duration > 0 && $0.problem == nil }
    // Only usable segments count towards a pass, so repetition always makes progress.
    let pass = zip(scenario.segments, usable).filter(\.1).map(\.0.duration).reduce(0, +)
    var index = 0
    // Stop a nanosecond short: rounding in the running sum must not spawn vanishing rests.
    while total - time > 1e-9 {
      let specification: ScenarioSegment
      let count = scenario.segments.count
      if index < Scenario.maximumSegmentCount, index < count {
        guard usable[index] else {
          index += 1
          continue
        }
        specification = scenario.segments[index]
      } else if index < Scenario.maximumSegmentCount, scenario.repeats, pass > 0 {
        guard usable[index % count] else {
          index += 1
          continue
        }
        specification = scenario.segments[index % count]
      } else {
        specification = .rest(duration: total - time)
      }
      index += 1
      let segment = TrajectorySegment(
        specification, start: time, attitude: attitude, position: position)
      events.append(contentsOf: segment.events(until: total))
      built.append(segment)
      let end = segment.state(at: time + segment.duration)
      attitude = end.earthFromSensor.normalized
      position = end.position
      time += segment.duration
    }
    segments = built
    startTimes = built.map(\.start)
    self.events = events.compactMap { event in
      guard event.start < total else { return nil }
      var clipped = event
      clipped.end = Swift.min(event.end, total)
      return clipped
    }
  }

  /// The true motion at `time` seconds (clamped to the scenario's span).
  public func state(at time: Double) -> KinematicState {
    guard !segments.isEmpty else {
      return KinematicState(
        time: time, earthFromSensor: initialAttitude, angularVelocity: .zero, position: .zero,
        velocity: .zero,
        acceleration: .zero)
    }
    // The last segment starting at or before `time` (binary search; segments are few).
    var low = 0
    var high = startTimes.count - 1
    while low < high {
      let mid = (low + high + 1) / 2
      if startTimes[mid] <= time { low = mid } else { high = mid - 1 }
    }
    return segments[low].state(at: time)
  }
}
