// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath

/// Runs the attitude estimators on recordings with ground truth and scores them with the BROAD
/// metrics; the library behind `motionctl evaluate`.
public enum FusionEvaluation {
  /// Errors from ``evaluate(paths:mode:parameters:)``.
  public enum Failure: Error, CustomStringConvertible {
    case noTrials([String])
    case noEvaluatedSamples(String)
    public var description: String {
      switch self {
      case .noTrials(let paths): return "no .csv trials found in \(paths.joined(separator: " "))"
      case .noEvaluatedSamples(let name): return "\(name): no movement samples with a reference"
      }
    }
  }

  /// The `.csv` files named by `paths`: files as given, directories expanded to their `.csv`
  /// files in name order (or to the files whose names `isTrial` accepts).
  public static func trialFiles(
    in paths: [String], where isTrial: (String) -> Bool = { $0.hasSuffix(".csv") }
  ) -> [String] {
    var files: [String] = []
    for path in paths {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        files.append(path)  // Let loading report it.
        continue
      }
      if isDirectory.boolValue {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for name in names.sorted() where isTrial(name) {
          files.append((path as NSString).appendingPathComponent(name))
        }
      } else {
        files.append(path)
      }
    }
    return files
  }

  /// Evaluates every trial named by `paths` (files or directories) in `mode` and returns the
  /// per-trial and mean RMS errors in degrees. With `decimation` k > 1 each trial is first
  /// reduced to 1/k of its rate (``EvaluationTrial/decimated(by:)``).
  public static func evaluate(
    paths: [String], mode: EvaluationMode, parameters: AttitudeEstimator.Parameters = .default,
    decimation: Int = 1
  ) throws -> EvaluationResult {
    let files = trialFiles(in: paths)
    guard !files.isEmpty else { throw Failure.noTrials(paths) }
    var trials: [EvaluationResult.Trial] = []
    for file in files {
      let trial = try EvaluationTrial.load(path: file).decimated(by: decimation)
      trials.append(try evaluate(trial, mode: mode, parameters: parameters))
    }
    return EvaluationResult(mode: mode, trials: trials)
  }

  /// Evaluates one loaded trial in `mode`.
  public static func evaluate(
    _ trial: EvaluationTrial, mode: EvaluationMode,
    parameters: AttitudeEstimator.Parameters = .default
  ) throws -> EvaluationResult.Trial {
    let estimates = estimate(trial, mode: mode, parameters: parameters)
    guard
      let summary = AttitudeErrorSummary.rms(
        estimates: estimates, references: trial.reference, isEvaluated: trial.isMovementPhase,
        removeHeadingOffset: !mode.usesMagnetometer)
    else { throw Failure.noEvaluatedSamples(trial.name) }
    return EvaluationResult.Trial(name: trial.name, summary: summary)
  }

  /// The estimated sensor-to-NWU attitude at every sample of `trial` in `mode`.
  public static func estimate(
    _ trial: EvaluationTrial, mode: EvaluationMode,
    parameters: AttitudeEstimator.Parameters = .default
  ) -> [Quaternion] {
    let period = trial.samplePeriod
    if mode.isOffline {
      return OfflineAttitudeEstimator.estimate(
        timestamps: trial.timestamps, gyroscope: trial.gyroscope,
        accelerometer: trial.accelerometer,
        magnetometer: mode.usesMagnetometer ? trial.magnetometer : nil, samplePeriod: period,
        parameters: parameters)
    }
    var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: period)
    var result = [Quaternion](repeating: .identity, count: trial.count)
    let magnetometer = mode.usesMagnetometer
    for i in 0..<trial.count {
      estimator.update(
        timestamp: trial.timestamps[i], gyroscope: trial.gyroscope[i],
        accelerometer: trial.accelerometer[i],
        magnetometer: magnetometer ? trial.magnetometer[i] : nil)
      result[i] = magnetometer ? estimator.earthFromSensor9D : estimator.earthFromSensor6D
    }
    return result
  }

  /// Single-thread throughput of the real-time 9D estimator on `trial`, samples per second: the
  /// best of `repetitions` timed runs over all samples (after one warm-up run), reading the 9D
  /// attitude after every sample.
  public static func throughput(
    _ trial: EvaluationTrial, repetitions: Int = 5,
    parameters: AttitudeEstimator.Parameters = .default
  ) -> Double {
    let period = trial.samplePeriod
    var best = Double.infinity
    var sink = 0.0
    for run in 0...Swift.max(1, repetitions) {
      var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: period)
      let start = DispatchTime.now().uptimeNanoseconds
      trial.timestamps.withUnsafeBufferPointer { t in
        trial.gyroscope.withUnsafeBufferPointer { g in
          trial.accelerometer.withUnsafeBufferPointer { a in
            trial.magnetometer.withUnsafeBufferPointer { m in
              for i in 0..<t.count {
                estimator.update(
                  timestamp: t[i], gyroscope: g[i], accelerometer: a[i], magnetometer: m[i])
                // Read the output every sample, as a batch API that returns attitudes would.
                sink += estimator.earthFromSensor9D.z
              }
            }
          }
        }
      }
      let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9
      sink += estimator.earthFromSensor9D.w
      if run > 0 { best = Swift.min(best, elapsed) }
    }
    // Keep the optimiser from discarding the work: the result depends on the sink, which is
    // never NaN for a trial that loaded (an empty trial has no rate anyway).
    return sink.isNaN ? .nan : Double(trial.count) / best
  }
}
