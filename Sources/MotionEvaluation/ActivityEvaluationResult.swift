// SPDX-License-Identifier: Apache-2.0

/// Leave-subjects-out scores of the activity classifier (what `motionctl evaluate activity`
/// prints).
public struct ActivityEvaluationResult: Codable, Sendable {
  /// One class of one source.
  public struct ClassScore: Codable, Sendable {
    public var label: String
    /// Windows (one per second after the first 5 s of each file) with this true label.
    public var windows: Int
    /// Share predicted as this class (0–1).
    public var recall: Double
    /// The README's softmax baseline recall for this class (0–1), when it gives one.
    public var baselineRecall: Double?
  }

  /// One source (`motionsense`, `qrowd`).
  public struct SourceScore: Codable, Sendable {
    public var source: String
    /// How the subjects were split (e.g. `"leave-2-subjects-out, 7 folds"`).
    public var folds: String
    public var classes: [ClassScore]
    /// Mean of the class recalls (balanced accuracy).
    public var meanRecall: Double
    public var baselineMeanRecall: Double?
    /// Share of all windows right.
    public var windowAccuracy: Double
    /// Column names of ``confusion``: the five classes then `unknown`.
    public var predictedLabels: [String]
    /// Rows: true class (the five classes); columns: ``predictedLabels``; window counts.
    public var confusion: [[Int]]
  }

  /// One change of activity in a concatenation of one held-out subject's files.
  public struct Switch: Codable, Sendable {
    public var source: String
    public var subject: String
    public var from: String
    public var to: String
    /// Seconds from the change in the data to the first report of the new class; `nil` if it was
    /// not reported before the next change.
    public var delay: Double?
  }

  /// Steps in the switching concatenations, per source and true label: what the step detector
  /// found and what the pedometer counts after its ``MotionDetectors/RidingStepGate``.
  public struct GatedSteps: Codable, Sendable, Equatable {
    public var source: String
    public var label: String
    public var detected: Int
    public var counted: Int

    /// One tally per source and label, in source then label order.
    static func totals(_ tallies: [GatedSteps]) -> [GatedSteps] {
      var sums: [String: GatedSteps] = [:]
      for tally in tallies {
        let key = tally.source + "|" + tally.label
        var sum =
          sums[key] ?? GatedSteps(source: tally.source, label: tally.label, detected: 0, counted: 0)
        sum.detected += tally.detected
        sum.counted += tally.counted
        sums[key] = sum
      }
      return sums.keys.sorted().map { sums[$0]! }
    }
  }

  public var sources: [SourceScore]
  public var switches: [Switch]
  /// Mean and largest ``Switch/delay`` over the switches that were reported (s).
  public var meanSwitchDelay: Double?
  public var maximumSwitchDelay: Double?
  /// Switches never reported before the next change.
  public var missedSwitches: Int
  /// Steps found and counted per source and label in the same concatenations.
  public var gatedSteps: [GatedSteps] = []
}
