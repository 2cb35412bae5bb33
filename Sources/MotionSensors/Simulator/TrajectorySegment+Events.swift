// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension TrajectorySegment {
  /// The events this segment contributes, in absolute scenario time; step events only up to
  /// `limit` (the scenario's end), so a segment cut short by the scenario makes no more of them.
  func events(until limit: Double) -> [ScenarioEvent] {
    let end = start + duration
    switch specification {
    case .rest:
      let name = Self.orientationName(of: startAttitude)
      return [ScenarioEvent(kind: .rest, start: start, end: end, detail: name?.rawValue)]
    case .moveTo(let target, _):
      let name = target.orientationName ?? Self.orientationName(of: target.earthFromSensor)
      return [
        ScenarioEvent(kind: .orientationChange, start: start, end: end, detail: name?.rawValue)
      ]
    case .rotate(let axis, let rate, _, _):
      return [
        ScenarioEvent(
          kind: .rotation, start: start, end: end, detail: "axis \(axis) at \(rate) °/s")
      ]
    case .translate:
      return [ScenarioEvent(kind: .translation, start: start, end: end)]
    case .shake:
      return [ScenarioEvent(kind: .shake, start: start, end: end)]
    case .tap(_, _, let pulse, _):
      return [ScenarioEvent(kind: .tap, start: start, end: start + pulse)]
    case .freeFall(let drop, let catchDuration, _):
      guard drop > 0 else { return [] }
      let release = Swift.min(0.03, drop / 2)
      return [
        ScenarioEvent(kind: .freeFall, start: start + release / 2, end: start + drop),
        ScenarioEvent(kind: .impact, start: start + drop, end: start + drop + catchDuration),
      ]
    case .walk(let cadence, _, _):
      return [ScenarioEvent(kind: .walk, start: start, end: end)]
        + stepEvents(cadence: cadence, until: limit)
    case .gait(let gait, _):
      var result = [ScenarioEvent(kind: gait.style == .run ? .run : .walk, start: start, end: end)]
      if gait.climb != 0 {
        result.append(
          ScenarioEvent(kind: .stairs, start: start, end: end, detail: Self.climbDetail(gait.climb))
        )
      }
      return result + stepEvents(cadence: gait.cadence, until: limit)
    case .ride(let kind, let climb, _):
      return [
        ScenarioEvent(
          kind: kind == .lift ? .lift : .escalator, start: start, end: end,
          detail: Self.climbDetail(climb))
      ]
    case .cycle:
      return [ScenarioEvent(kind: .cycle, start: start, end: end)]
    case .drive(_, _, _, _, let turns):
      var result = [ScenarioEvent(kind: .drive, start: start, end: end)]
      for turn in turns where turn.start < duration {
        result.append(
          ScenarioEvent(
            kind: .turn, start: start + Swift.max(turn.start, 0),
            end: start + Swift.min(turn.start + turn.duration, duration),
            detail: turn.angle >= 0 ? "left \(turn.angle)°" : "right \(-turn.angle)°"))
      }
      return result
    case .figure8:
      return [ScenarioEvent(kind: .figure8, start: start, end: end)]
    }
  }

  /// One step event per vertical acceleration peak, at k/cadence, where the gait has at least
  /// half its full amplitude, before `limit` (absolute time).
  ///
  /// A valid segment has a cadence of at most 5 steps/s and lasts at most a day; one outside the
  /// ranges (laid out only when a scenario built in code skips validation) makes none, so the loop
  /// below is bounded.
  private func stepEvents(cadence: Double, until limit: Double) -> [ScenarioEvent] {
    guard specification.problem == nil, cadence > 0 else { return [] }
    var result: [ScenarioEvent] = []
    let period = 1 / cadence
    let ramp = Swift.min(1, duration / 2)
    let end = Swift.min(duration, limit - start)
    var k = 1
    while Double(k) * period < end {
      let peak = Double(k) * period
      if SmoothProfile.window(peak, duration: duration, ramp: ramp).value >= 0.5 {
        result.append(
          ScenarioEvent(
            kind: .step, start: start + peak - 0.2 * period, end: start + peak + 0.2 * period))
      }
      k += 1
    }
    return result
  }

  private static func climbDetail(_ climb: Double) -> String {
    climb >= 0 ? "up \(climb) m" : "down \(-climb) m"
  }

  /// The named orientation whose gravity direction lies within 5° of the attitude's, if any.
  static func orientationName(of earthFromSensor: Quaternion) -> DeviceOrientationName? {
    let up = earthFromSensor.conjugate.act(on: SIMD3(0, 0, 1))
    let limit = Double.cos(5 * Units.radiansPerDegree)
    for name in DeviceOrientationName.allCases {
      let reference = name.earthFromSensor.conjugate.act(on: SIMD3(0, 0, 1))
      if up.dot(reference) >= limit { return name }
    }
    return nil
  }
}
