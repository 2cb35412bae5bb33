// SPDX-License-Identifier: Apache-2.0

/// The cadence each step is walked at, and so its length under ``StrideModel``: one rule for every
/// place that sums a distance (`CMPedometer`, the daemon's history, the dashboard and
/// `motionctl steps`), so that the same step times give the same distance everywhere.
///
/// The rule is causal, as a live count must be: a step's cadence is the steps per second over the
/// last ``Parameters/stepsKept`` steps of its bout, itself included. A bout ends when no step comes
/// for more than ``Parameters/boutGap`` seconds (the pedometer's pause), so that a walk that starts
/// after a run is not measured with the run's strides. A bout's first step has no interval yet: its
/// cadence is unknown (`nil`) and its length is the one at ``Parameters/nominalCadence``.
///
/// The steps are kept in a ring allocated at `init`: noting a step allocates nothing.
public struct StepCadence: Sendable {
  /// How the cadence is measured.
  public struct Parameters: Sendable, Equatable {
    /// Steps over which the cadence is measured, the newest included (at least 2).
    public var stepsKept: Int
    /// A longer interval between two steps, s, ends the bout (the pedometer's pause delay).
    public var boutGap: Double
    /// Cadence assumed for the length of a bout's first step, steps/s (a typical adult walk).
    public var nominalCadence: Double

    public init(stepsKept: Int = 8, boutGap: Double = 2, nominalCadence: Double = 1.8) {
      self.stepsKept = stepsKept
      self.boutGap = boutGap
      self.nominalCadence = nominalCadence
    }

    public static let `default` = Parameters()
  }

  /// One step's cadence and length.
  public struct Step: Sendable, Equatable {
    /// Steps per second over the bout's latest steps; `nil` for a bout's first step.
    public var cadence: Double?
    /// The step's length from the stride model, m (finite and not negative).
    public var length: Double
  }

  public let parameters: Parameters
  /// The stride model the lengths come from.
  public var strideModel: StrideModel
  private var bout: StepTimeRing

  public init(parameters: Parameters = .default, strideModel: StrideModel = StrideModel()) {
    self.parameters = parameters
    self.strideModel = strideModel
    bout = StepTimeRing(capacity: Swift.max(2, parameters.stepsKept))
  }

  /// Notes a step at `time` (s) and returns its cadence and length.
  public mutating func noteStep(at time: Double) -> Step {
    // A long interval ends the bout; so does a time before the last step's (a source clock that
    // restarted), which has no cadence to give.
    if let last = bout.last, !(time >= last && time - last <= parameters.boutGap) {
      bout.removeAll()
    }
    if bout.isFull { _ = bout.popFirst() }
    _ = bout.append(time)
    var cadence: Double?
    if bout.count >= 2, let first = bout.first, time > first {
      cadence = Double(bout.count - 1) / (time - first)
    }
    let length = strideModel.strideLength(cadence: cadence ?? parameters.nominalCadence)
    return Step(cadence: cadence, length: length.isFinite ? Swift.max(0, length) : 0)
  }

  /// Ends the bout: the next step is a bout's first (at a pause, or when the clock restarts).
  public mutating func endBout() {
    bout.removeAll()
  }
}
