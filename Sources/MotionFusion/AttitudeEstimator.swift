// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A real-time attitude estimator for 6D (gyroscope + accelerometer) and 9D (+ magnetometer)
/// inertial data with gyroscope bias estimation, rest detection, magnetic disturbance rejection and
/// online magnetometer calibration.
///
/// The method is the one published by Laidig & Seel ("VQF: Highly accurate IMU orientation
/// estimation with bias estimation and magnetic disturbance rejection", Information Fusion 2023),
/// implemented from the paper:
/// - the gyroscope is integrated into an *almost-inertial* frame `I` (`inertialFromSensor`);
/// - the accelerometer is rotated into `I` and low-pass filtered there, where gravity is constant
///   and user accelerations average out; the filtered vector fixes the inclination
///   (`earthFromInertial`), so the correction is smooth without a gain on the attitude itself;
/// - the heading is a single angle about the vertical, corrected toward the horizontal magnetic
///   field, so the magnetometer can never disturb the inclination;
/// - the gyroscope bias is a Kalman filter fed at rest by the low-pass filtered gyroscope and in
///   motion by the inclination corrections (the rotation they undo is the bias seen through the
///   low-pass filtered attitude);
/// - the field's norm and dip are compared with a slowly adapting reference to reject
///   disturbances, and a steady new field seen during motion replaces the reference.
///
/// Our additions and departures:
/// - the motion bias measurement noise grows with the recent angular rate and user acceleration
///   (gyroscope scale errors and residual accelerations look like bias), which keeps the bias
///   steady through fast motion;
/// - the outputs are extrapolated over the gyroscope's delay (``Parameters/gyroscopeDelay``);
/// - each accelerometer and magnetometer sample is compared with the attitude of the instant it
///   describes, the middle of its sample interval (and, for the magnetometer, its own delay), not
///   with the attitude at the interval's end (``Parameters/sampleAveragingLag``,
///   ``Parameters/magnetometerDelay``): at phone rates the difference is a rotation of a degree or
///   more during brisk motion;
/// - ``MagnetometerCalibrator``, an attitude-aided online hard/soft-iron calibration, supplies the
///   calibrated field and its accuracy (and, once the calibration is trusted and
///   ``Parameters/usesCalibratedFieldForHeading`` is on, the field used for the heading);
/// - for speed, the bias Kalman updates and their model filters run about every 0.2 s
///   (``Parameters/biasUpdatePeriod``) and the
///   heading logic every 2nd magnetometer sample, each carrying the information of the samples
///   in between.
///
/// Parameters, the coefficients derived from them and the running state are kept apart. All the
/// work happens in ``update(timestamp:gyroscope:accelerometer:magnetometer:accelerometerTimestamp:magnetometerTimestamp:)`` without heap
/// allocation.
public struct AttitudeEstimator: Sendable {
  /// The tuning in use.
  public let parameters: Parameters
  /// Quantities derived from the parameters and the nominal sample period.
  public let coefficients: Coefficients
  /// The running state.
  public internal(set) var state = State()

  /// Creates an estimator for samples nominally `samplePeriod` seconds apart.
  public init(parameters: Parameters = .default, samplePeriod: Double) {
    self.parameters = parameters
    self.coefficients = Coefficients(parameters: parameters, samplePeriod: samplePeriod)
    state = State()
    state.magnetometerCalibrator = MagnetometerCalibrator(
      parameters: parameters.magnetometerCalibration)
    state.accelerometerClippingLevel = coefficients.accelerometerClippingLevel
    resetFilters(keepBias: false)
  }

  // MARK: - Outputs

  /// Attitude without magnetometer (sensor to 6D earth frame; heading arbitrary but steady),
  /// extrapolated over the gyroscope delay (``Parameters/gyroscopeDelay``).
  @inlinable
  public var earthFromSensor6D: Quaternion {
    let q = filteredAttitude6D
    guard state.outputPrediction != .identity else { return q }
    return Self.multiply(q, state.outputPrediction)
  }

  /// The filter's own 6D attitude at the last sample's timestamp (no extrapolation).
  @inlinable
  public var filteredAttitude6D: Quaternion {
    Self.multiply(state.earthFromInertial, state.inertialFromSensor)
  }

  /// Attitude with magnetic heading (sensor to NWU earth frame, x toward magnetic north).
  @inlinable
  public var earthFromSensor9D: Quaternion {
    // The heading rotation is about z only (w, 0, 0, z): half the work of a full product.
    let h = state.headingRotation
    let q = earthFromSensor6D
    return Quaternion(
      w: h.w * q.w - h.z * q.z, x: h.w * q.x - h.z * q.y, y: h.w * q.y + h.z * q.x,
      z: h.w * q.z + h.z * q.w)
  }

  /// Standard deviation of the magnetic heading's error (of ``earthFromSensor9D`` about the
  /// vertical), rad; `nil` before the first magnetic heading. It grows between corrections with
  /// the gyroscope's noise, its bias uncertainty about the vertical and its scale uncertainty
  /// times the turning, and shrinks with each correction toward the field's own uncertainty
  /// (``Parameters/calibratedHeadingSigma`` or ``Parameters/uncalibratedHeadingSigma``); a field
  /// rejected as disturbed corrects nothing, so the uncertainty keeps growing. Never more than a
  /// uniform heading's (π/√3, 104°).
  ///
  /// Also `nil` while the heading comes from a raw field that no calibration accounts for
  /// (``isHeadingFieldCalibrated`` false): an unfitted hard iron biases it by an amount nothing
  /// here can bound (``Parameters/rawFieldIsCalibrated``).
  public var headingUncertainty: Double? {
    guard state.isHeadingInitialized, isHeadingFieldCalibrated else { return nil }
    return state.headingErrorVariance.squareRoot()
  }

  /// Whether the field the heading follows has the device's hard iron accounted for: a
  /// calibration of our own that the heading uses (``Parameters/usesCalibratedFieldForHeading``
  /// and ``MagnetometerCalibrator/isUsableForHeading``), or a raw field that comes calibrated
  /// (``Parameters/rawFieldIsCalibrated``).
  public var isHeadingFieldCalibrated: Bool {
    usesCalibrationForHeading || parameters.rawFieldIsCalibrated
  }

  /// Whether the heading follows the field of our own calibration rather than the raw one.
  var usesCalibrationForHeading: Bool {
    parameters.usesCalibratedFieldForHeading && state.magnetometerCalibrator.isUsableForHeading
  }

  /// The gyroscope bias estimate, rad/s.
  public var gyroscopeBias: SIMD3<Double> { state.gyroscopeBias }

  /// Standard deviation of the bias estimate (largest axis), rad/s.
  public var gyroscopeBiasSigma: Double {
    let p = state.biasCovariance
    return Swift.max(p.row1.x, p.row2.y, p.row3.z, 0).squareRoot()
  }

  /// `vector` (sensor frame), measured by the latest accelerometer sample at the instant that
  /// sample describes, in the sensor axes of the instant the outputs describe: turned by the
  /// rotation between the two (``State/sampleToOutputRotation``; a fraction of a degree). Gravity
  /// from the outputs and a specific force turned this way refer to the same instant, so their
  /// sum, the user acceleration, holds no gravity from the rotation in between.
  package func atOutputInstant(_ vector: SIMD3<Double>) -> SIMD3<Double> {
    Self.turned(vector, by: state.sampleToOutputRotation)
  }

  /// `vector` seen from sensor axes turned by the rotation vector `rotation` (rad): the vector
  /// itself stays, so in the turned axes it moves by −`rotation`. For the usual fraction of a
  /// degree `v + v × rotation` (first order, error below 1e-4 of |v| up to 0.8°); beyond that
  /// (absurd rates or long intervals) the exact rotation, so the length is always kept.
  public static func turned(_ vector: SIMD3<Double>, by rotation: SIMD3<Double>) -> SIMD3<Double> {
    let angle2 = rotation.lengthSquared
    if angle2 < 2e-4 { return vector + cross(vector, rotation) }
    return Quaternion(rotationVector: -rotation).act(on: vector)
  }

  /// The rotation vector (rad, sensor frame) from the instant a vector sample describes to the
  /// instant the outputs describe, for a bias-corrected `rate` (rad/s) and the sample's lag behind
  /// `timestamp` (``sampleLag(at:sampleTimestamp:interval:clock:parameters:)``, s) plus the
  /// gyroscope's delay over this interval (``Parameters/gyroscopeDelay`` and
  /// ``Parameters/gyroscopeDelayIntervals``, s): what ``State/sampleToOutputRotation`` holds after
  /// an update.
  package static func sampleToOutputRotation(
    rate: SIMD3<Double>, sampleLag: Double, gyroscopeDelay: Double
  ) -> SIMD3<Double> {
    rate * (sampleLag + gyroscopeDelay)
  }

  /// Seconds from the instant a vector sample describes to `timestamp`: for a sample stamped
  /// with the gyroscope (`sampleTimestamp` nil), ``Parameters/sampleAveragingLag`` of the
  /// gyroscope's `interval`; for one on its own clock, its age plus that share of its own interval
  /// (`clock`'s, else the gyroscope's). The age is kept within ±``Parameters/reinitializationGap``;
  /// a non-finite timestamp counts as none.
  package static func sampleLag(
    at timestamp: Double, sampleTimestamp: Double?, interval: Double,
    clock: State.SensorClock, parameters: Parameters
  ) -> Double {
    guard let sampleTimestamp, sampleTimestamp.isFinite else {
      return parameters.sampleAveragingLag * interval
    }
    let limit = parameters.reinitializationGap
    let age = Swift.min(Swift.max(timestamp - sampleTimestamp, -limit), limit)
    let ownInterval = clock.interval > 0 ? clock.interval : interval
    return age + parameters.sampleAveragingLag * ownInterval
  }

  // MARK: - Update

  /// Feeds one sample: raw gyroscope (rad/s), specific force (m/s²) and optionally the raw
  /// magnetometer (µT), all in the sensor frame, at `timestamp` seconds.
  ///
  /// Non-finite or all-zero accelerometer samples and timestamps that do not move forward are
  /// skipped and counted in the diagnostics; saturated axes are counted and keep the affected
  /// sensor out of corrections and bias estimation. A gap longer than
  /// ``Parameters/reinitializationGap`` restarts the attitude from the accelerometer but keeps the
  /// bias and the 6D heading (which the gap says nothing about); so does a timestamp earlier than
  /// the last one by more than that (a new timeline), where a less early one is skipped.
  ///
  /// `accelerometerTimestamp` and `magnetometerTimestamp` are the timestamps of those samples when
  /// they differ from `timestamp`: a sensor on its own clock or at its own rate, whose latest
  /// sample is passed with each gyroscope sample until the next one arrives. Each is then compared
  /// with the attitude of the instant it describes, its own age plus
  /// ``Parameters/sampleAveragingLag`` of its own sample interval (measured between its
  /// timestamps) before this update. `nil` (the default): stamped with the gyroscope.
  public mutating func update(
    timestamp: Double,
    gyroscope: SIMD3<Double>,
    accelerometer: SIMD3<Double>,
    magnetometer: SIMD3<Double>?,
    accelerometerTimestamp: Double? = nil,
    magnetometerTimestamp: Double? = nil
  ) {
    guard timestamp.isFinite, gyroscope.isFinite, accelerometer.isFinite else {
      state.diagnostics.nonFiniteSamples += 1
      return
    }
    guard accelerometer.lengthSquared > 1e-6 else {
      state.diagnostics.zeroAccelerometerSamples += 1
      return
    }
    // A finite but absurd value (1e200 rad/s) would overflow the integration into NaN for good.
    guard !Self.reaches(gyroscope, parameters.gyroscopePlausibleLimit),
      !Self.reaches(accelerometer, parameters.accelerometerPlausibleLimit)
    else {
      state.diagnostics.implausibleSamples += 1
      return
    }
    var dt = coefficients.samplePeriod
    if let last = state.lastTimestamp {
      // Earlier by more than a gap: a new timeline (a clock that restarted lower, or a last
      // sample stamped far ahead), taken like a gap. Skipped instead, one such sample would leave
      // every later one "earlier" and the attitude frozen for good.
      let newTimeline = timestamp < last - parameters.reinitializationGap
      guard timestamp > last || newTimeline else {
        state.diagnostics.outOfOrderSamples += 1
        return
      }
      dt = timestamp - last
      if dt > parameters.reinitializationGap || newTimeline {
        state.diagnostics.gaps += 1
        let previous = filteredAttitude6D
        resetFilters(keepBias: true)
        // How the device turned during the gap is unknown. The inclination is taken again from
        // the accelerometer at once (the filters start warm); the arbitrary 6D heading carries on
        // from before the gap instead of starting over, so it does not jump.
        if previous.isFinite { state.inertialFromSensor = previous.normalized }
        dt = coefficients.samplePeriod
      }
    }
    state.lastTimestamp = timestamp
    state.diagnostics.acceptedSamples += 1
    state.isInitialized = true

    let gyroscopeSaturated = Self.reaches(gyroscope, parameters.gyroscopeSaturation)
    // A clipped accelerometer sample is left out of the inclination (and its bias information):
    // the attitude follows the gyroscope alone for that step.
    // The range is the declared one or, when lower, the one learned from repeated readings at
    // the same largest magnitude (learned before the test, so the reading that confirms it counts).
    let clippingLevel = Self.learnAccelerometerRail(
      accelerometer, parameters: parameters, coefficients: coefficients, state: &state)
    let accelerometerSaturated = Self.reaches(accelerometer, clippingLevel)
    if gyroscopeSaturated || accelerometerSaturated { state.diagnostics.saturatedSamples += 1 }
    if accelerometerSaturated { state.diagnostics.clippedAccelerometerSamples += 1 }

    let gyroscopeDelay = parameters.gyroscopeDelay(over: dt)
    let rate = integrateGyroscope(gyroscope, dt: dt, delay: gyroscopeDelay)
    // The attitude now describes the end of the sample interval; an accelerometer or
    // magnetometer sample describes an earlier instant (``Parameters/sampleAveragingLag``,
    // ``Parameters/magnetometerDelay``). `rate * lag` is the rotation vector (rad, sensor frame)
    // from that instant to the end, at the interval's rate.
    state.accelerometerClock.observe(accelerometerTimestamp, limit: parameters.reinitializationGap)
    let accelerometerLag = Self.sampleLag(
      at: timestamp, sampleTimestamp: accelerometerTimestamp, interval: dt,
      clock: state.accelerometerClock, parameters: parameters)
    state.sampleToOutputRotation = Self.sampleToOutputRotation(
      rate: rate, sampleLag: accelerometerLag, gyroscopeDelay: gyroscopeDelay)
    if !accelerometerSaturated {
      correctInclination(
        accelerometer, rotationSince: rate * accelerometerLag, dt: dt,
        useForBias: !gyroscopeSaturated)
    }
    detectRest(
      gyroscope: gyroscope, accelerometer: accelerometer, dt: dt,
      valid: !(gyroscopeSaturated || accelerometerSaturated))
    state.covarianceTime += dt
    state.covarianceCounter += 1
    if state.covarianceCounter >= coefficients.biasUpdateInterval {
      propagateBiasCovariance(dt: state.covarianceTime)
      propagateHeadingUncertainty(dt: state.covarianceTime)
      state.covarianceCounter = 0
      state.covarianceTime = 0
    }

    if let magnetometer {
      if !magnetometer.isFinite {
        state.diagnostics.nonFiniteSamples += 1
      } else if Self.reaches(magnetometer, parameters.magnetometerPlausibleLimit) {
        state.diagnostics.implausibleSamples += 1
      } else if magnetometer.lengthSquared > 1e-12 {
        state.lastMagneticField = magnetometer
        // Every field sample's timestamp, processed for the heading or not, so that the clock
        // measures the magnetometer's own interval.
        state.magnetometerClock.observe(
          magnetometerTimestamp, limit: parameters.reinitializationGap)
        // The heading needs no more than a fraction of the inertial rate: process every
        // `magnetometerInterval`-th field sample over the time since the last one processed (but
        // the very first one at once, so that a magnetic heading exists from the first field
        // sample on). The time counts every sample, with or without a field, so a magnetometer
        // slower than the gyroscope keeps the heading's time constants in seconds.
        state.magnetometerCounter += 1
        if state.magnetometerCounter >= coefficients.magnetometerInterval
          || !state.isHeadingInitialized
        {
          let elapsed = Swift.min(state.magnetometerTime + dt, parameters.reinitializationGap)
          let magnetometerLag = Self.sampleLag(
            at: timestamp, sampleTimestamp: magnetometerTimestamp, interval: dt,
            clock: state.magnetometerClock, parameters: parameters)
          correctHeading(
            magnetometer, rotationSince: rate * (magnetometerLag + parameters.magnetometerDelay),
            gyroscope: gyroscope, dt: elapsed)
          state.magnetometerCounter = 0
          state.magnetometerTime = 0
          return restartIfNotFiniteAndCheck()
        }
      }
    }
    state.magnetometerTime += dt
    restartIfNotFiniteAndCheck()
  }

  @inline(__always)
  mutating func restartIfNotFiniteAndCheck() {
    restartIfNotFinite()
    checkInvariants()
  }

  /// Restarts everything (bias included) when the attitude, heading or bias stopped being
  /// finite, counted in the diagnostics. Inputs are screened, so this is a safety net; one sum
  /// per sample checks it (a NaN or infinity in any term makes the sum non-finite).
  @inline(__always)
  mutating func restartIfNotFinite() {
    let q = state.inertialFromSensor, e = state.earthFromInertial, h = state.headingRotation
    let sum =
      q.w + q.x + q.y + q.z + e.w + e.x + e.y + e.z + h.w + h.z + state.headingOffset
      + state.gyroscopeBias.sum() + state.outputPrediction.w + state.outputPrediction.x
      + state.outputPrediction.y + state.outputPrediction.z
    guard !sum.isFinite else { return }
    state.diagnostics.nonFiniteStateResets += 1
    resetFilters(keepBias: false)
    state.lastTimestamp = nil
    state.isInitialized = false
    state.meanSquaredRate = 0
    state.meanSquaredAccelerationDeviation = 0
    state.hasFieldReference = false
    // The calibrator's sums may hold the broken attitude; its adopted calibration passed the
    // fit checks before and is kept.
    let calibrator = state.magnetometerCalibrator
    state.magnetometerCalibrator = MagnetometerCalibrator(parameters: calibrator.parameters)
    state.magnetometerCalibrator.adoptCalibration(of: calibrator)
  }

  @inline(__always)
  static func reaches(_ v: SIMD3<Double>, _ limit: Double) -> Bool {
    Swift.abs(v.x) >= limit || Swift.abs(v.y) >= limit || Swift.abs(v.z) >= limit
  }

  /// Restarts the attitude; the bias (and its uncertainty) survive when `keepBias` is true.
  mutating func resetFilters(keepBias: Bool) {
    let samplePeriod = coefficients.samplePeriod
    state.inertialFromSensor = .identity
    state.earthFromInertial = .identity
    state.headingOffset = 0
    state.headingRotation = .identity
    state.outputPrediction = .identity
    state.previousIncrement = .zero
    state.inertialAcceleration = LowPassFilter3(
      timeConstant: parameters.accelerometerTimeConstant, samplePeriod: samplePeriod)
    let biasPeriod = samplePeriod * Double(coefficients.biasUpdateInterval)
    state.attitudeRow1 = LowPassFilter3(
      timeConstant: parameters.accelerometerTimeConstant, samplePeriod: biasPeriod)
    state.attitudeRow2 = LowPassFilter3(
      timeConstant: parameters.accelerometerTimeConstant, samplePeriod: biasPeriod)
    state.attitudeTimesBias = LowPassFilter3(
      timeConstant: parameters.accelerometerTimeConstant, samplePeriod: biasPeriod)
    state.correctionSum = .zero
    state.correctionTime = 0
    state.motionBiasCounter = 0
    state.magnetometerCounter = 0
    state.magnetometerTime = 0
    state.covarianceCounter = 0
    state.covarianceTime = 0
    state.restGyroscope = LowPassFilter3(
      timeConstant: parameters.restFilterTimeConstant, samplePeriod: samplePeriod)
    state.restAccelerometer = LowPassFilter3(
      timeConstant: parameters.restFilterTimeConstant, samplePeriod: samplePeriod)
    state.restDuration = 0
    state.isRestDetected = false
    state.isHeadingInitialized = false
    state.headingSampleCount = 0
    state.headingErrorVariance = Double.pi * Double.pi / 3
    state.headingBiasCovariance = 0
    state.undisturbedTime = 0
    state.rejectionTime = 0
    state.candidateFieldTime = 0
    state.isMagneticDisturbanceDetected = false
    state.lastInclinationCorrection = .zero
    if !keepBias {
      state.gyroscopeBias = .zero
      state.biasCovariance = .diagonal(coefficients.biasInitialVariance)
    }
  }
}
