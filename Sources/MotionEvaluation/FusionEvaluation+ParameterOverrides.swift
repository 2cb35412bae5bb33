// SPDX-License-Identifier: Apache-2.0

import MotionFusion

extension FusionEvaluation {
  /// The numeric estimator parameters by name, for `motionctl evaluate --set NAME=VALUE`
  /// experiments (values in the parameter's documented unit; angles in radians). The flag
  /// `usesCalibratedFieldForHeading` and `rawFieldIsCalibrated` are set with 0 or 1. (Computed: key paths are not `Sendable`,
  /// so a stored static table would be shared mutable state to the compiler.)
  package static var parameterKeyPaths:
    [String: WritableKeyPath<AttitudeEstimator.Parameters, Double>]
  {
    [
      "accelerometerTimeConstant": \.accelerometerTimeConstant,
      "magnetometerTimeConstant": \.magnetometerTimeConstant,
      "biasInitialSigma": \.biasInitialSigma,
      "biasForgettingTime": \.biasForgettingTime,
      "biasLimit": \.biasLimit,
      "motionBiasNoiseDensity": \.motionBiasNoiseDensity,
      "motionBiasRateScale": \.motionBiasRateScale,
      "motionBiasAccelerationScale": \.motionBiasAccelerationScale,
      "restBiasNoiseDensity": \.restBiasNoiseDensity,
      "biasUpdatePeriod": \.biasUpdatePeriod,
      "restFilterTimeConstant": \.restFilterTimeConstant,
      "restGyroscopeThreshold": \.restGyroscopeThreshold,
      "restGyroscopeDeviationThreshold": \.restGyroscopeDeviationThreshold,
      "restAccelerometerThreshold": \.restAccelerometerThreshold,
      "restMinimumDuration": \.restMinimumDuration,
      "gyroscopeNoiseDensity": \.gyroscopeNoiseDensity,
      "gyroscopeScaleUncertainty": \.gyroscopeScaleUncertainty,
      "calibratedHeadingSigma": \.calibratedHeadingSigma,
      "uncalibratedHeadingSigma": \.uncalibratedHeadingSigma,
      "magneticCurrentTimeConstant": \.magneticCurrentTimeConstant,
      "magneticReferenceTimeConstant": \.magneticReferenceTimeConstant,
      "magneticNormTolerance": \.magneticNormTolerance,
      "magneticDipTolerance": \.magneticDipTolerance,
      "magneticNewFieldTime": \.magneticNewFieldTime,
      "magneticFirstFieldTime": \.magneticFirstFieldTime,
      "magneticNewFieldMinimumRate": \.magneticNewFieldMinimumRate,
      "magneticMinimumUndisturbedTime": \.magneticMinimumUndisturbedTime,
      "magneticMaximumRejectionTime": \.magneticMaximumRejectionTime,
      "magneticRejectionFactor": \.magneticRejectionFactor,
      "gyroscopeDelay": \.gyroscopeDelay,
      "gyroscopeDelayIntervals": \.gyroscopeDelayIntervals,
      "sampleAveragingLag": \.sampleAveragingLag,
      "magnetometerDelay": \.magnetometerDelay,
      "reinitializationGap": \.reinitializationGap,
      "gyroscopeSaturation": \.gyroscopeSaturation,
      "accelerometerRange": \.accelerometerRange,
      "accelerometerClippingMargin": \.accelerometerClippingMargin,
      "gyroscopePlausibleLimit": \.gyroscopePlausibleLimit,
      "accelerometerPlausibleLimit": \.accelerometerPlausibleLimit,
      "magnetometerPlausibleLimit": \.magnetometerPlausibleLimit,
      "magnetometerCalibration.forgettingTime": \.magnetometerCalibration.forgettingTime,
      "magnetometerCalibration.accumulationInterval":
        \.magnetometerCalibration.accumulationInterval,
      "magnetometerCalibration.lowResidual": \.magnetometerCalibration.lowResidual,
      "magnetometerCalibration.mediumResidual": \.magnetometerCalibration.mediumResidual,
      "magnetometerCalibration.highResidual": \.magnetometerCalibration.highResidual,
      "magnetometerCalibration.minimumOffsetChange": \.magnetometerCalibration.minimumOffsetChange,
    ]
  }

  /// The Boolean parameters by name, set with 0 or 1.
  package static var flagKeyPaths: [String: WritableKeyPath<AttitudeEstimator.Parameters, Bool>] {
    [
      "usesCalibratedFieldForHeading": \.usesCalibratedFieldForHeading,
      "rawFieldIsCalibrated": \.rawFieldIsCalibrated,
    ]
  }

  /// Errors from ``parameters(overriding:with:)``.
  public enum OverrideError: Error, CustomStringConvertible {
    case malformed(String)
    case unknownParameter(String)
    public var description: String {
      switch self {
      case .malformed(let text): return "expected NAME=VALUE with a finite number, got \"\(text)\""
      case .unknownParameter(let name):
        return "unknown parameter \"\(name)\"; known: "
          + (Array(parameterKeyPaths.keys) + flagKeyPaths.keys).sorted().joined(separator: ", ")
      }
    }
  }

  /// `base` with each `NAME=VALUE` of `assignments` applied.
  public static func parameters(
    overriding base: AttitudeEstimator.Parameters = .default, with assignments: [String]
  ) throws -> AttitudeEstimator.Parameters {
    var result = base
    for assignment in assignments {
      let parts = assignment.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, let value = Double(parts[1]), value.isFinite else {
        throw OverrideError.malformed(assignment)
      }
      if let flag = flagKeyPaths[String(parts[0])] {
        result[keyPath: flag] = value != 0
        continue
      }
      guard let keyPath = parameterKeyPaths[String(parts[0])] else {
        throw OverrideError.unknownParameter(String(parts[0]))
      }
      result[keyPath: keyPath] = value
    }
    return result
  }
}
