// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import MotionEvaluation
import MotionFusion

/// `motionctl evaluate PATH...`: attitude accuracy against ground truth (BROAD metrics);
/// `motionctl evaluate activity PATH...`: activity classification, leave subjects out.
struct EvaluateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "evaluate",
    abstract:
      "Score the attitude estimator against ground truth (BROAD-layout CSV files or folders of them), or with `steps` or `activity` first, the step counter or the activity classifier.",
    discussion: """
      Prints per-trial total, heading and inclination RMSE in degrees over the movement phase, and \
      their mean over trials, as defined in the BROAD benchmark (6D modes first remove the one \
      constant heading offset that best aligns the estimate). Estimators start from their own state \
      at the first sample.

      `evaluate activity PATH...` (PATH: the shared activity folder with its index.csv, or files \
      listed in one) scores the activity classifier leave-subjects-out: per-class recall and the \
      confusion matrix per source next to the README baselines, and switching delays.

      `evaluate steps PATH...` (PATH: the shared step folder with its index.csv, or recordings \
      listed in one) scores the step counter: error per recording and MAPE per set and placement, \
      next to the README's baseline. `--rate HZ` averages every recording over intervals of 1/HZ s \
      first, to score the counter at the rate a phone delivers.
      """)

  @Argument(
    help: "Trial files (.csv) or folders of them; or `steps` followed by step-count data paths.")
  var paths: [String]

  @Option(name: .customLong("mode"), help: "realtime9d, realtime6d, offline9d or offline6d.")
  var modeOption: EvaluationMode?

  /// The attitude mode: `--mode`, real-time 9D by default.
  var mode: EvaluationMode { modeOption ?? .realtime9d }

  @Flag(
    help:
      "Print JSON: {\"mode\", \"trials\": [{\"name\", \"total\", \"heading\", \"inclination\"}], \"mean\"}."
  )
  var json = false

  @Option(
    help: """
      Decimate each trial by K first: gyroscope, accelerometer and magnetometer averaged over \
      each window of K samples; time, reference and movement flag from the window's last sample.
      """)
  var decimate = 1

  @Option(
    help: ArgumentHelp(
      "With `evaluate steps`: average each recording over intervals of 1/HZ s first, to count at a phone's rate (e.g. 50).",
      valueName: "hz"))
  var rate: Double?

  @Option(
    name: .customLong("set"),
    help:
      "Override an estimator parameter for an experiment: NAME=VALUE (documented unit; repeatable)."
  )
  var overrides: [String] = []

  @Flag(
    help: """
      Instead of ground truth, compare our real-time 6D gravity with Apple's CMDeviceMotion.gravity \
      on iPhone recordings in the MotionSense layout (t, ax…az in g, gx…gz in rad/s, \
      apple_gravity_x…z): median and 95th percentile angle per file, degrees; and both \
      gravities' angles to the recording's own centred reference (the mean specific force over \
      5 s around each sample, in its frame through the gyroscope). Other recordings that log \
      Core Motion's device motion (SensorLog with its motion columns, device-motion CSVs) are \
      replayed as CMMotionManager would fuse them, each sensor on its own clock, and compared \
      at Apple's instants (no reference figures).
      """)
  var appleAgreement = false

  @Flag(
    help: """
      Instead of the RMS errors, check the real-time 9D estimator's heading uncertainty (the σ \
      behind CMDeviceMotion.headingAccuracy) against the ground truth: per trial the share of \
      samples with a magnetic heading but no σ (an uncalibrated raw field; --set \
      rawFieldIsCalibrated=1 declares it calibrated), the share of samples whose heading error \
      is within 1, 2 and 3 σ, the median σ and the median and 95th percentile heading error, \
      degrees.
      """)
  var headingUncertainty = false

  @Flag(
    help:
      "Also measure single-thread throughput (samples/s) of the real-time 9D estimator on the first trial."
  )
  var throughput = false

  func validate() throws {
    guard (1...10_000).contains(decimate) else {
      throw ValidationError("--decimate must be between 1 and 10000")
    }
    // Options that the chosen evaluation would ignore are refused, not dropped without a word.
    let kind = paths.first == "steps" || paths.first == "activity" ? paths.first! : "attitude"
    var ignored: [String] = []
    if kind != "attitude" {
      if modeOption != nil { ignored.append("--mode") }
      if decimate != 1 { ignored.append("--decimate") }
      if !overrides.isEmpty { ignored.append("--set") }
      if appleAgreement { ignored.append("--apple-agreement") }
      if headingUncertainty { ignored.append("--heading-uncertainty") }
      if throughput { ignored.append("--throughput") }
    }
    if kind != "steps", rate != nil { ignored.append("--rate") }
    if kind != "activity", writeModel != nil { ignored.append("--write-model") }
    if kind == "attitude", appleAgreement {
      if headingUncertainty { ignored.append("--heading-uncertainty (with --apple-agreement)") }
      if modeOption != nil { ignored.append("--mode (with --apple-agreement: real-time 6D)") }
      if throughput { ignored.append("--throughput (with --apple-agreement)") }
    }
    if kind == "attitude", headingUncertainty, throughput {
      ignored.append("--throughput (with --heading-uncertainty)")
    }
    if kind == "attitude", headingUncertainty, let modeOption, modeOption != .realtime9d {
      ignored.append("--mode \(modeOption.rawValue) (--heading-uncertainty checks realtime9d)")
    }
    if !ignored.isEmpty {
      throw ValidationError(
        "\(ignored.joined(separator: ", ")) \(ignored.count == 1 ? "does" : "do") not apply to "
          + (kind == "attitude" ? "this attitude evaluation" : "`evaluate \(kind)`"))
    }
    if let rate, !(1...10_000).contains(rate) {
      throw ValidationError("--rate must be between 1 and 10000 Hz")
    }
  }

  @Option(
    help: ArgumentHelp(
      "With `evaluate activity`: also train on every given file and write the model as Swift source here.",
      valueName: "swift-file"))
  var writeModel: String?

  func run() throws {
    if paths.first == "activity" {
      try ActivityEvaluationReport.run(
        paths: Array(paths.dropFirst()), json: json, writeModel: writeModel)
      return
    }
    // `motionctl evaluate steps PATH...`: the step counter's sub-mode (attitude stays the default).
    if paths.first == "steps" {
      try StepsEvaluationOutput.run(paths: Array(paths.dropFirst()), json: json, rate: rate)
      return
    }
    if appleAgreement {
      try runAppleAgreement()
      return
    }
    let parameters = try FusionEvaluation.parameters(with: overrides)
    if headingUncertainty {
      try runHeadingUncertainty(parameters: parameters)
      return
    }
    let result = try FusionEvaluation.evaluate(
      paths: paths, mode: mode, parameters: parameters, decimation: decimate)
    var samplesPerSecond: Double?
    if throughput, let first = FusionEvaluation.trialFiles(in: paths).first {
      samplesPerSecond = FusionEvaluation.throughput(
        try EvaluationTrial.load(path: first).decimated(by: decimate), parameters: parameters)
    }
    if json {
      var object =
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(result)) as! [String: Any]
      if let samplesPerSecond { object["throughput"] = samplesPerSecond }
      let data = try JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
      print(String(decoding: data, as: UTF8.self))
      return
    }
    print("mode: \(result.mode.rawValue)   (RMSE in degrees)")
    print(
      "trial".padding(toLength: 48, withPad: " ", startingAt: 0) + "   total  heading  inclination")
    func row(_ name: String, _ total: Double, _ heading: Double, _ inclination: Double) -> String {
      name.padding(toLength: 48, withPad: " ", startingAt: 0)
        + String(format: " %7.2f  %7.2f  %11.2f", total, heading, inclination)
    }
    for trial in result.trials {
      print(row(trial.name, trial.total, trial.heading, trial.inclination))
    }
    print(
      row(
        "mean (\(result.trials.count) trials)", result.mean.total, result.mean.heading,
        result.mean.inclination))
    if let samplesPerSecond {
      print(
        String(format: "throughput: %.0f samples/s (real-time 9D, one thread)", samplesPerSecond))
    }
  }
}

extension EvaluateCommand {
  func runAppleAgreement() throws {
    // Core Motion's device-motion outputs are instants of one clock: the estimator is told so
    // (`FusionAppleAgreement.deviceMotionParameters`), and the overrides apply on top.
    _ = try FusionEvaluation.parameters(with: overrides)  // a clear error before any file is read
    var trials: [FusionAppleAgreement.Trial] = []
    for file in Self.appleAgreementFiles(in: paths) {
      trials.append(try appleAgreementTrial(path: file))
    }
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      print(String(decoding: try encoder.encode(["trials": trials]), as: UTF8.self))
      return
    }
    print(
      "angles between gravity directions, degrees: ours to Apple's, and ours and Apple's to the "
        + "recording's own centred reference (5 s mean specific force in the gyroscope's frame)")
    print(
      "trial".padding(toLength: 32, withPad: " ", startingAt: 0)
        + "  to Apple: median     p95   ours to ref: median     p95   Apple to ref: median     p95"
        + "  samples")
    func figure(_ value: Double?) -> String {
      value.map { String(format: "%7.2f", $0) } ?? "      -"
    }
    for trial in trials {
      print(
        trial.name.padding(toLength: 32, withPad: " ", startingAt: 0)
          + String(format: "            %7.2f %7.2f", trial.median, trial.p95)
          + "                 \(figure(trial.referenceMedian)) \(figure(trial.referenceP95))"
          + "                  \(figure(trial.appleReferenceMedian)) \(figure(trial.appleReferenceP95))"
          + String(format: " %8d", trial.count))
    }
  }
}

extension EvaluationMode: ExpressibleByArgument {}

extension EvaluateCommand {
  /// `--heading-uncertainty`: the coverage table (or its JSON).
  func runHeadingUncertainty(parameters: AttitudeEstimator.Parameters) throws {
    let result = try HeadingUncertaintyEvaluation.evaluate(
      paths: paths, parameters: parameters, decimation: decimate)
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      print(String(decoding: try encoder.encode(result), as: UTF8.self))
      return
    }
    print("real-time 9D heading error against its reported σ (degrees)")
    print(
      "trial".padding(toLength: 40, withPad: " ", startingAt: 0)
        + " samples  no σ    ≤1σ    ≤2σ    ≤3σ   median σ  median err  p95 err")
    for trial in result.trials + [result.pooled] {
      print(
        trial.name.padding(toLength: 40, withPad: " ", startingAt: 0)
          + String(
            format: " %7d %5.1f%%  %5.1f%%  %5.1f%%  %5.1f%%  %8.2f  %10.2f  %7.2f", trial.samples,
            100 * Double(trial.samplesWithoutSigma)
              / Double(Swift.max(1, trial.samples + trial.samplesWithoutSigma)),
            100 * trial.withinOneSigma, 100 * trial.withinTwoSigma, 100 * trial.withinThreeSigma,
            trial.medianSigma, trial.medianError, trial.percentile95Error))
    }
  }
}
