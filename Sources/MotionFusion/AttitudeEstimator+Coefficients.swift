// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension AttitudeEstimator {
  /// Per-sample quantities derived once from the parameters and the nominal sample period.
  public struct Coefficients: Sendable, Equatable {
    /// The nominal sample period, s.
    public var samplePeriod: Double
    /// Fraction of the heading error removed per heading update (every
    /// `AttitudeEstimator.magnetometerInterval` magnetometer samples).
    public var magnetometerGain: Double
    /// First-order gain of the current field norm/dip filter.
    public var magneticCurrentGain: Double
    /// First-order gain of the reference field norm/dip filter.
    public var magneticReferenceGain: Double
    /// The gyroscope delay, s (``Parameters/gyroscopeDelayInSamples`` sample periods).
    public var gyroscopeDelay: Double
    /// Bias variance added per sample, (rad/s)².
    public var biasProcessVariance: Double
    /// Initial (and largest) bias variance, (rad/s)².
    public var biasInitialVariance: Double
    /// Measurement variance of the motion bias update, (rad/s)².
    public var motionBiasVariance: Double
    /// `1/ω₀²` of the rate-dependent motion bias noise, (s/rad)².
    public var motionBiasRateFactor: Double
    /// `1/a₀²` of the acceleration-dependent motion bias noise, (s²/m)².
    public var motionBiasAccelerationFactor: Double
    /// First-order gain of the mean squared angular rate filter (time constant of the
    /// accelerometer filter).
    public var rateGain: Double
    /// Measurement variance of the rest bias update, (rad/s)².
    public var restBiasVariance: Double

    /// Derives the coefficients for samples `samplePeriod` seconds apart.
    public init(parameters p: Parameters, samplePeriod: Double) {
      self.samplePeriod = samplePeriod
      let headingPeriod = samplePeriod * Double(AttitudeEstimator.magnetometerInterval)
      magnetometerGain = Self.gain(timeConstant: p.magnetometerTimeConstant, samplePeriod: headingPeriod)
      magneticCurrentGain = Self.gain(
        timeConstant: p.magneticCurrentTimeConstant, samplePeriod: headingPeriod)
      magneticReferenceGain = Self.gain(
        timeConstant: p.magneticReferenceTimeConstant, samplePeriod: headingPeriod)
      biasInitialVariance = p.biasInitialSigma * p.biasInitialSigma
      gyroscopeDelay = p.gyroscopeDelayInSamples * samplePeriod
      // The variance regrows by the initial variance over the forgetting time.
      biasProcessVariance = p.biasForgettingTime > 0
        ? biasInitialVariance * samplePeriod / p.biasForgettingTime : 0
      motionBiasVariance = p.motionBiasSigma * p.motionBiasSigma
      restBiasVariance = p.restBiasSigma * p.restBiasSigma
      motionBiasRateFactor = p.motionBiasRateScale > 0
        ? 1 / (p.motionBiasRateScale * p.motionBiasRateScale) : 0
      motionBiasAccelerationFactor = p.motionBiasAccelerationScale > 0
        ? 1 / (p.motionBiasAccelerationScale * p.motionBiasAccelerationScale) : 0
      rateGain = Self.gain(timeConstant: p.accelerometerTimeConstant, samplePeriod: samplePeriod)
    }

    /// The gain of a first-order low-pass with time constant `timeConstant` (s) sampled every
    /// `samplePeriod` (s): `1 − exp(−T/τ)`; 1 (pass-through) when τ is not positive.
    public static func gain(timeConstant: Double, samplePeriod: Double) -> Double {
      guard timeConstant > 0 else { return 1 }
      return 1 - Double.exp(-samplePeriod / timeConstant)
    }
  }
}
