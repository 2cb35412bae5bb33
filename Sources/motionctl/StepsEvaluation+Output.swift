// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionEvaluation

/// `motionctl evaluate steps PATH... [--json] [--rate HZ]`: the step counter against the shared
/// ground truth, at the recordings' own rate or resampled to `rate`.
enum StepsEvaluationOutput {
  static func run(paths: [String], json: Bool, rate: Double? = nil) throws {
    guard !paths.isEmpty else {
      throw CLIError("evaluate steps needs data paths (e.g. ../shared/data/steps)")
    }
    let result = try StepEvaluation.evaluate(paths: paths, rate: rate)
    if result.recordings.isEmpty {
      throw CLIError("no recording with step ground truth under \(paths.joined(separator: " "))")
    }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      print(String(decoding: try encoder.encode(result), as: UTF8.self))
      return
    }
    print(
      "file".padding(toLength: 48, withPad: " ", startingAt: 0)
        + "  truth  steps   error  baseline  b.error  distance")
    for r in result.recordings {
      let baseline = r.baselineSteps.map { String(format: "%8d", $0) } ?? "       -"
      let baselineError = r.baselineError.map { String(format: "%+7.1f%%", $0) } ?? "       -"
      let distance =
        r.distanceError.map { String(format: "%6.1f m (%+.1f%%)", r.distance, $0) }
        ?? String(format: "%6.1f m", r.distance)
      print(
        r.file.padding(toLength: 48, withPad: " ", startingAt: 0)
          + String(format: " %6d %6d %+6.1f%%", r.truth, r.steps, r.error)
          + "  \(baseline) \(baselineError)  \(distance)")
    }
    table("per set", result.sets)
    table("per placement (Oxford)", result.placements)
  }

  private static func table(_ title: String, _ groups: [StepEvaluation.Group]) {
    print("\n\(title): error in %   (ours | README baseline on the same recordings)")
    print(
      "group".padding(toLength: 22, withPad: " ", startingAt: 0)
        + "    n   MAPE  median  signed   total  worst |   MAPE  median  signed   total  worst")
    func cells(_ s: StepEvaluation.Statistics) -> String {
      String(
        format: "%6.2f  %6.2f  %+6.2f  %+6.2f  %5.1f", s.mape, s.medianAPE, s.meanSignedError,
        s.totalCountError, s.worst)
    }
    for group in groups {
      var line =
        group.name.padding(toLength: 22, withPad: " ", startingAt: 0)
        + String(format: " %4d ", group.ours.recordings) + cells(group.ours)
      line += " | " + (group.baseline.map(cells) ?? "   -")
      if let mape = group.distanceMAPE, let signed = group.distanceMeanSignedError {
        line += String(format: "   distance vs nominal: MAPE %.1f%%, signed %+.1f%%", mape, signed)
      }
      print(line)
    }
  }
}
