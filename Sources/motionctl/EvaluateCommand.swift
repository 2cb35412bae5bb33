// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionEvaluation

/// `motionctl evaluate PATH...`: attitude accuracy against ground truth (BROAD metrics);
/// `motionctl evaluate activity PATH...`: activity classification, leave subjects out.
struct EvaluateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "evaluate",
    abstract:
      "Score the attitude estimator against ground truth (BROAD-layout CSV files or folders of them), or with `activity` first, the activity classifier.",
    discussion: """
      Prints per-trial total, heading and inclination RMSE in degrees over the movement phase, and \
      their mean over trials, as defined in the BROAD benchmark (6D modes first remove the one \
      constant heading offset that best aligns the estimate). Estimators start from their own state \
      at the first sample.

      `evaluate activity PATH...` (PATH: the shared activity folder with its index.csv, or files \
      listed in one) scores the activity classifier leave-subjects-out: per-class recall and the \
      confusion matrix per source next to the README baselines, and switching delays.
      """)

  @Argument(help: "Trial files (.csv) or folders of them.")
  var paths: [String]

  @Option(help: "realtime9d, realtime6d, offline9d or offline6d.")
  var mode: EvaluationMode = .realtime9d

  @Flag(help: "Print JSON: {\"mode\", \"trials\": [{\"name\", \"total\", \"heading\", \"inclination\"}], \"mean\"}.")
  var json = false

  @Flag(help: "Also measure single-thread throughput (samples/s) of the real-time 9D estimator on the first trial.")
  var throughput = false

  @Option(
    help: ArgumentHelp(
      "With `evaluate activity`: also train on every given file and write the model as Swift source here.",
      valueName: "swift-file"))
  var writeModel: String?

  func run() throws {
    if paths.first == "activity" {
      try ActivityEvaluationReport.run(paths: Array(paths.dropFirst()), json: json, writeModel: writeModel)
      return
    }
    let result = try FusionEvaluation.evaluate(paths: paths, mode: mode)
    var samplesPerSecond: Double?
    if throughput, let first = FusionEvaluation.trialFiles(in: paths).first {
      samplesPerSecond = FusionEvaluation.throughput(try EvaluationTrial.load(path: first))
    }
    if json {
      var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(result)) as! [String: Any]
      if let samplesPerSecond { object["throughput"] = samplesPerSecond }
      let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
      print(String(decoding: data, as: UTF8.self))
      return
    }
    print("mode: \(result.mode.rawValue)   (RMSE in degrees)")
    print("trial".padding(toLength: 48, withPad: " ", startingAt: 0) + "   total  heading  inclination")
    func row(_ name: String, _ total: Double, _ heading: Double, _ inclination: Double) -> String {
      name.padding(toLength: 48, withPad: " ", startingAt: 0)
        + String(format: " %7.2f  %7.2f  %11.2f", total, heading, inclination)
    }
    for trial in result.trials {
      print(row(trial.name, trial.total, trial.heading, trial.inclination))
    }
    print(row("mean (\(result.trials.count) trials)", result.mean.total, result.mean.heading, result.mean.inclination))
    if let samplesPerSecond {
      print(String(format: "throughput: %.0f samples/s (real-time 9D, one thread)", samplesPerSecond))
    }
  }
}

extension EvaluationMode: ExpressibleByArgument {}
