// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath

/// How well the real-time 9D estimator's ``AttitudeEstimator/headingUncertainty`` describes its
/// actual heading error against ground truth (BROAD trials: the reference is in the same
/// magnetic-north frame, so the heading error is absolute).
///
/// For every evaluated sample that has a reference and a reported standard deviation σ, the
/// heading error is compared with σ: the share of samples within 1σ, 2σ and 3σ (about 68, 95 and
/// 99.7 % for a Gaussian error with that σ), and the medians of σ and of the error, so that a σ
/// that covers by being huge shows as such. Samples with a magnetic heading but no σ (the heading
/// follows a raw field no calibration accounts for: see
/// ``AttitudeEstimator/Parameters/rawFieldIsCalibrated``) are counted apart.
public struct HeadingUncertaintyEvaluation: Sendable, Equatable, Codable {
  /// One trial's figures (angles in degrees).
  public struct Trial: Sendable, Equatable, Codable {
    public var name: String
    /// Samples compared with a σ.
    public var samples: Int
    /// Samples with a magnetic heading but no σ reported.
    public var samplesWithoutSigma: Int
    public var withinOneSigma: Double
    public var withinTwoSigma: Double
    public var withinThreeSigma: Double
    public var medianSigma: Double
    public var medianError: Double
    public var percentile95Error: Double
  }

  public var trials: [Trial]
  /// The same figures over the samples of all trials pooled.
  public var pooled: Trial

  /// Evaluates every trial of `paths` (files or folders) with `parameters`.
  public static func evaluate(
    paths: [String], parameters: AttitudeEstimator.Parameters = .default, decimation: Int = 1
  ) throws -> HeadingUncertaintyEvaluation {
    let files = FusionEvaluation.trialFiles(in: paths)
    guard !files.isEmpty else { throw FusionEvaluation.Failure.noTrials(paths) }
    var trials: [Trial] = []
    var allErrors: [Double] = []
    var allSigmas: [Double] = []
    var allWithoutSigma = 0
    for file in files {
      let trial = try EvaluationTrial.load(path: file).decimated(by: decimation)
      let (errors, sigmas, withoutSigma) = errorsAndSigmas(trial, parameters: parameters)
      trials.append(
        summary(name: trial.name, errors: errors, sigmas: sigmas, withoutSigma: withoutSigma))
      allErrors += errors
      allSigmas += sigmas
      allWithoutSigma += withoutSigma
    }
    return HeadingUncertaintyEvaluation(
      trials: trials,
      pooled: summary(
        name: "all", errors: allErrors, sigmas: allSigmas, withoutSigma: allWithoutSigma))
  }

  /// The absolute heading error and the reported σ (both rad) at every evaluated sample with a
  /// reference and a σ, and how many evaluated samples with a reference and a magnetic heading
  /// had no σ.
  static func errorsAndSigmas(
    _ trial: EvaluationTrial, parameters: AttitudeEstimator.Parameters
  ) -> (errors: [Double], sigmas: [Double], withoutSigma: Int) {
    var estimator = AttitudeEstimator(parameters: parameters, samplePeriod: trial.samplePeriod)
    var errors: [Double] = []
    var sigmas: [Double] = []
    var withoutSigma = 0
    for i in 0..<trial.count {
      estimator.update(
        timestamp: trial.timestamps[i], gyroscope: trial.gyroscope[i],
        accelerometer: trial.accelerometer[i], magnetometer: trial.magnetometer[i])
      guard trial.isMovementPhase[i], let reference = trial.reference[i],
        estimator.state.isHeadingInitialized
      else { continue }
      guard let sigma = estimator.headingUncertainty else {
        withoutSigma += 1
        continue
      }
      let error = AttitudeError(estimate: estimator.earthFromSensor9D, reference: reference)
      errors.append(error.heading)
      sigmas.append(sigma)
    }
    return (errors, sigmas, withoutSigma)
  }

  static func summary(
    name: String, errors: [Double], sigmas: [Double], withoutSigma: Int
  ) -> Trial {
    let n = errors.count
    func share(_ multiple: Double) -> Double {
      guard n > 0 else { return 0 }
      var inside = 0
      for i in 0..<n where errors[i] <= multiple * sigmas[i] { inside += 1 }
      return Double(inside) / Double(n)
    }
    func percentile(_ values: [Double], _ p: Double) -> Double {
      guard !values.isEmpty else { return .nan }
      let sorted = values.sorted()
      let index = Swift.min(
        sorted.count - 1, Swift.max(0, Int((p * Double(sorted.count - 1)).rounded())))
      return sorted[index] * Units.degreesPerRadian
    }
    return Trial(
      name: name, samples: n, samplesWithoutSigma: withoutSigma, withinOneSigma: share(1),
      withinTwoSigma: share(2),
      withinThreeSigma: share(3), medianSigma: percentile(sigmas, 0.5),
      medianError: percentile(errors, 0.5), percentile95Error: percentile(errors, 0.95))
  }
}
