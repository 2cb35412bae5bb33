// SPDX-License-Identifier: Apache-2.0

/// The outcome of an evaluation run, in the shape `motionctl evaluate --json` prints:
/// `{"mode": …, "trials": [{"name": …, "total": …, "heading": …, "inclination": …}], "mean": {…}}`
/// with RMS errors in degrees.
public struct EvaluationResult: Sendable, Codable, Equatable {
  /// One trial's RMS errors, °.
  public struct Trial: Sendable, Codable, Equatable {
    public var name: String
    public var total: Double
    public var heading: Double
    public var inclination: Double

    public init(name: String, summary: AttitudeErrorSummary) {
      self.name = name
      total = summary.total
      heading = summary.heading
      inclination = summary.inclination
    }
  }

  /// The mean over trials of each RMS error, °.
  public struct Mean: Sendable, Codable, Equatable {
    public var total: Double
    public var heading: Double
    public var inclination: Double
  }

  public var mode: EvaluationMode
  public var trials: [Trial]
  public var mean: Mean

  /// Collects per-trial results and averages them (zeros when there are none).
  public init(mode: EvaluationMode, trials: [Trial]) {
    self.mode = mode
    self.trials = trials
    let n = Double(Swift.max(trials.count, 1))
    mean = Mean(
      total: trials.map(\.total).reduce(0, +) / n,
      heading: trials.map(\.heading).reduce(0, +) / n,
      inclination: trials.map(\.inclination).reduce(0, +) / n)
  }
}
