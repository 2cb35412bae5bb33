// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionEvaluation
import MotionSensors

/// `motionctl evaluate activity PATH...`: the tables (or JSON) of ``ActivityEvaluation``.
enum ActivityEvaluationReport {
  static func run(paths: [String], json: Bool, writeModel: String?) throws {
    guard !paths.isEmpty else {
      throw CLIError("evaluate activity: give the activity folder or files")
    }
    // The model file is checked before minutes of evaluation, and written as every output is
    // (TextOutput: a temporary file renamed into place; a FIFO, a device or a folder at the path
    // is refused: a plain write blocked for ever on a FIFO without a reader).
    if let writeModel,
      let refusal = OutputPath.refusal(for: writeModel, inputs: paths)
        ?? FileReplacement.refusal(for: writeModel)
    {
      throw CLIError("cannot write \(writeModel): \(refusal)")
    }
    let dataset: ActivityDataset
    do {
      dataset = try ActivityDataset.load(paths: paths)
    } catch {
      throw CLIError("\(error)")
    }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let sets = try ActivityFeatureSet.load(dataset, concurrency: cores)
    let result = try ActivityEvaluation.evaluate(sets, concurrency: cores)
    if let writeModel {
      let model = ActivityEvaluation.trainFinal(sets)
      let sources = Set(sets.map(\.entry.source)).sorted().joined(separator: ", ")
      let note =
        "Trained on \(sets.count) files (\(sources)), \(sets.map(\.features.count).reduce(0, +)) windows."
      let out = try TextOutput(path: writeModel)
      do {
        try out.write(ActivityTrainer.swiftSource(model, note: note))
        try out.finish()
      } catch {
        out.abandon()
        throw error
      }
    }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      print(String(decoding: try encoder.encode(result), as: UTF8.self))
      return
    }
    func percent(_ x: Double?) -> String {
      x.map { String(format: "%5.1f %%", $0 * 100) } ?? "     —"
    }
    for source in result.sources {
      print(
        "\(source.source) (\(source.folds)); recall = share of a class's windows predicted as that class"
      )
      print("  class        windows   recall   baseline (README softmax)")
      for c in source.classes {
        print(
          "  " + c.label.padding(toLength: 12, withPad: " ", startingAt: 0)
            + String(format: " %7d", c.windows)
            + "  " + percent(c.recall) + "   " + percent(c.baselineRecall))
      }
      print(
        "  mean recall          " + percent(source.meanRecall) + "   "
          + percent(source.baselineMeanRecall)
          + "   window accuracy " + percent(source.windowAccuracy))
      print(
        "  confusion (rows: true; columns: " + source.predictedLabels.joined(separator: ", ") + ")")
      for (label, row) in zip(source.predictedLabels, source.confusion) where row.reduce(0, +) > 0 {
        print(
          "  " + label.padding(toLength: 12, withPad: " ", startingAt: 0)
            + row.map { String(format: " %6d", $0) }.joined())
      }
      print("")
    }
    if !result.switches.isEmpty {
      print(
        "switching delay (concatenated held-out files; s from the change to the first report of the new class)"
      )
      for s in result.switches {
        print(
          "  " + "\(s.source) \(s.subject)".padding(toLength: 18, withPad: " ", startingAt: 0)
            + "\(s.from) → \(s.to)".padding(toLength: 28, withPad: " ", startingAt: 0)
            + (s.delay.map { String(format: "%5.1f", $0) } ?? "never"))
      }
      print(
        String(
          format: "  mean %.1f s, max %.1f s, missed %d of %d", result.meanSwitchDelay ?? .nan,
          result.maximumSwitchDelay ?? .nan, result.missedSwitches, result.switches.count))
    }
    if !result.gatedSteps.isEmpty {
      print("")
      print(
        "steps in the same concatenations: found by the step detector, and counted by the pedometer (rides' steps held back)"
      )
      for tally in result.gatedSteps {
        print(
          "  " + "\(tally.source) \(tally.label)".padding(toLength: 24, withPad: " ", startingAt: 0)
            + String(format: "found %6d  counted %6d", tally.detected, tally.counted))
      }
    }
  }
}
