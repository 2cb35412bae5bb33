// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension AttitudeEstimator {
  /// Per-sample quantities derived once from the parameters and the nominal sample period.
  public struct Coefficients: Sendable, Equatable {
    /// The nominal sample period, s.
    public var samplePeriod: Double
    /// The bias Kalman updates run every this many samples (``Parameters/biasUpdatePeriod`` in
    /// samples, 1…64), each carrying the information of the samples in between (its measurement
    /// variance scales with the summed time, so the information per second is the same at any
    /// rate). A time, not a sample count: with a fixed count of 4 the bias filter ran every 14 ms
    /// at 286 Hz but every 200 ms at 20 Hz, and updating about every sample at 100 Hz made the
    /// bias follow the strongly correlated inclination corrections too eagerly.
    public var biasUpdateInterval: Int
    /// The heading and magnetic disturbance logic run every this many magnetometer samples
    /// (about every 7 ms: 2 at 286 Hz, 1 at 100 Hz and below).
    public var magnetometerInterval: Int
    /// The nominal time between heading updates, s (``magnetometerInterval`` sample periods).
    public var headingPeriod: Double
    /// Fraction of the heading error removed per heading update (every
    /// ``magnetometerInterval`` magnetometer samples).
    public var magnetometerGain: Double
    /// First-order gain of the current field norm/dip filter.
    public var magneticCurrentGain: Double
    /// First-order gain of the reference field norm/dip filter.
    public var magneticReferenceGain: Double
    /// The gyroscope delay, s (``Parameters/gyroscopeDelay``).
    public var gyroscopeDelay: Double
    /// Accelerometer readings with any axis at or beyond this magnitude are clipped, m/s²
    /// (``Parameters/accelerometerRange`` less its margin).
    public var accelerometerClippingLevel: Double
    /// The fraction of a range at which a reading counts as clipped (1 − the margin).
    public var accelerometerClippingFraction: Double
    /// Bias variance added per sample, (rad/s)².
    public var biasProcessVariance: Double
    /// Initial (and largest) bias variance, (rad/s)².
    public var biasInitialVariance: Double
    /// Measurement variance of the motion bias update times its time span, (rad/s)²·s.
    public var motionBiasVarianceTime: Double
    /// `1/ω₀²` of the rate-dependent motion bias noise, (s/rad)².
    public var motionBiasRateFactor: Double
    /// `1/a₀²` of the acceleration-dependent motion bias noise, (s²/m)².
    public var motionBiasAccelerationFactor: Double
    /// First-order gain of the mean squared angular rate filter (time constant of the
    /// accelerometer filter).
    public var rateGain: Double
    /// Measurement variance of the rest bias update, (rad/s)² (one update per
    /// ``biasUpdateInterval`` samples).
    public var restBiasVariance: Double

    /// Derives the coefficients for samples `samplePeriod` seconds apart.
    public init(parameters p: Parameters, samplePeriod requestedPeriod: Double) {
      // The nominal period may come from a file header: keep it finite and within 1 µs … 10 s.
      let samplePeriod =
        requestedPeriod.isFinite
        ? Swift.min(Swift.max(requestedPeriod, 1e-6), 10) : 0.01
      self.samplePeriod = samplePeriod
      biasUpdateInterval = Self.interval(p.biasUpdatePeriod, samplePeriod: samplePeriod)
      magnetometerInterval = Self.interval(0.007, samplePeriod: samplePeriod)
      headingPeriod = samplePeriod * Double(magnetometerInterval)
      magnetometerGain = Self.gain(
        timeConstant: p.magnetometerTimeConstant, samplePeriod: headingPeriod)
      magneticCurrentGain = Self.gain(
        timeConstant: p.magneticCurrentTimeConstant, samplePeriod: headingPeriod)
      magneticReferenceGain = Self.gain(
        timeConstant: p.magneticReferenceTimeConstant, samplePeriod: headingPeriod)
      biasInitialVariance = p.biasInitialSigma * p.biasInitialSigma
      let margin =
        p.accelerometerClippingMargin.isFinite
        ? Swift.min(Swift.max(p.accelerometerClippingMargin, 0), 1) : 0
      accelerometerClippingFraction = 1 - margin
      accelerometerClippingLevel = p.accelerometerRange * (1 - margin)
      gyroscopeDelay = p.gyroscopeDelay
      // The variance regrows by the initial variance over the forgetting time.
      biasProcessVariance =
        p.biasForgettingTime > 0
        ? biasInitialVariance * samplePeriod / p.biasForgettingTime : 0
      motionBiasVarianceTime = p.motionBiasNoiseDensity * p.motionBiasNoiseDensity
      restBiasVariance =
        p.restBiasNoiseDensity * p.restBiasNoiseDensity
        / (samplePeriod * Double(biasUpdateInterval))
      motionBiasRateFactor =
        p.motionBiasRateScale > 0
        ? 1 / (p.motionBiasRateScale * p.motionBiasRateScale) : 0
      motionBiasAccelerationFactor =
        p.motionBiasAccelerationScale > 0
        ? 1 / (p.motionBiasAccelerationScale * p.motionBiasAccelerationScale) : 0
      rateGain = Self.gain(timeConstant: p.accelerometerTimeConstant, samplePeriod: samplePeriod)
    }

    /// How many samples `samplePeriod` (s, clamped above) apart make up about `time` seconds:
    /// at least 1, at most 64.
    static func interval(_ time: Double, samplePeriod: Double) -> Int {
      let ratio = (time / samplePeriod).rounded()
      // A NaN time (a parameter set to NaN) must not trap in the conversion: every sample.
      guard !ratio.isNaN else { return 1 }
      return Int(Swift.min(Swift.max(ratio, 1), 64))
    }

    /// The gain of a first-order low-pass with time constant `timeConstant` (s) sampled every
    /// `samplePeriod` (s): `1 − exp(−T/τ)`; 1 (pass-through) when τ is not positive.
    public static func gain(timeConstant: Double, samplePeriod: Double) -> Double {
      guard timeConstant > 0 else { return 1 }
      return 1 - Double.exp(-samplePeriod / timeConstant)
    }
  }
}
