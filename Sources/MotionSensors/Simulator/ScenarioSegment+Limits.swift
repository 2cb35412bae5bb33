// SPDX-License-Identifier: Apache-2.0

/// The physical ranges of the segments' parameters (the table is on ``ScenarioSegment``), and the
/// check that ``Scenario/validate()`` and ``ScenarioTrajectory`` share.
extension ScenarioSegment {
  /// The most turns one drive segment takes (each is evaluated at every sample).
  static let maximumTurnCount = 100

  /// Why the segment cannot be simulated (the field and its range), or `nil` when it can.
  var problem: String? {
    guard numericParameters.allSatisfy(\.isFinite) else {
      return "has a parameter that is not a finite number"
    }
    let longest = Scenario.maximumDuration
    guard duration >= 0, duration <= longest else {
      return "duration must be 0…\(Int(longest)) s, got \(duration)"
    }
    func outside(
      _ name: String, _ value: Double, _ range: ClosedRange<Double>, _ unit: String
    ) -> String? {
      range.contains(value)
        ? nil : "\(name) must be \(range.lowerBound)…\(range.upperBound) \(unit), got \(value)"
    }
    switch self {
    case .rest, .moveTo:
      return nil
    case .rotate(_, let rate, let duration, let ramp):
      if let problem = outside("rate", rate, -4000...4000, "°/s") { return problem }
      // Without a ramp the rate would jump, and the gyroscope with it.
      return ramp > 0 && 2 * ramp <= duration ? nil : "needs 0 < ramp ≤ duration / 2, got \(ramp)"
    case .translate(let displacement, _):
      return [displacement.x, displacement.y, displacement.z].allSatisfy { abs($0) <= 10_000 }
        ? nil : "displacement must be within ±10000 m per axis, got \(displacement)"
    case .shake(_, let amplitude, let frequency, _):
      if let problem = outside("amplitude", amplitude, 0...1, "m") { return problem }
      return frequency > 0 && frequency <= 50
        ? nil : "frequency must be more than 0 and at most 50 Hz, got \(frequency)"
    case .tap(_, let peak, let pulse, let duration):
      if let problem = outside("peakAcceleration", peak, -2000...2000, "m/s²") { return problem }
      guard pulse > 0, pulse <= 1 else {
        return "pulseDuration must be more than 0 and at most 1 s, got \(pulse)"
      }
      return duration >= 5 * pulse ? nil : "needs duration ≥ 5 × pulseDuration"
    case .walk(let cadence, let speed, _):
      return outside("cadence", cadence, 0.5...5, "steps/s")
        ?? outside("speed", speed, 0...10, "m/s")
    case .gait(let gait, _):
      return outside("cadence", gait.cadence, 0.5...5, "steps/s")
        ?? outside("speed", gait.speed, 0...10, "m/s")
        ?? outside("climb", gait.climb, -1000...1000, "m")
    case .ride(_, let climb, _):
      return outside("climb", climb, -1000...1000, "m")
    case .cycle(let cadence, let speed, _):
      return outside("cadence", cadence, 0.2...3, "revolutions/s")
        ?? outside("speed", speed, 0...25, "m/s")
    case .drive(let speed, _, let vibration, let ramp, let turns):
      if let problem = outside("speed", speed, 0...100, "m/s")
        ?? outside("vibration", vibration, 0...20, "m/s²")
        ?? outside("ramp", ramp, 0...longest, "s")
      {
        return problem
      }
      guard turns.count <= Self.maximumTurnCount else {
        return "has \(turns.count) turns; the limit is \(Self.maximumTurnCount)"
      }
      for (index, turn) in turns.enumerated() {
        if let problem = outside("turns[\(index)].start", turn.start, -longest...longest, "s")
          ?? outside("turns[\(index)].angle", turn.angle, -3600...3600, "°")
        {
          return problem
        }
        guard turn.duration > 0, turn.duration <= longest else {
          return "turns[\(index)].duration must be more than 0 and at most \(Int(longest)) s, "
            + "got \(turn.duration)"
        }
      }
      return nil
    case .freeFall(let drop, let catchDuration, let duration):
      if let problem = outside("dropDuration", drop, 0...10, "s") { return problem }
      guard catchDuration > 0, catchDuration <= 10 else {
        return "catchDuration must be more than 0 and at most 10 s, got \(catchDuration)"
      }
      return duration >= drop + catchDuration
        ? nil : "needs duration ≥ dropDuration + catchDuration"
    case .figure8(let period, _):
      return outside("period", period, 0.5...120, "s")
    }
  }
}
