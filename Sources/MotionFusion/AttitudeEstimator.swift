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
  public private(set) var state = State()

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

  // MARK: - Gyroscope

  /// Integrates one rate sample over `dt` s, with the outputs extrapolated over the gyroscope's
  /// `delay` (s); returns the bias-corrected rate (rad/s).
  @inline(__always)
  mutating func integrateGyroscope(
    _ gyroscope: SIMD3<Double>, dt: Double, delay: Double
  ) -> SIMD3<Double> {
    let rate = gyroscope - state.gyroscopeBias
    if delay != 0 {
      state.outputPrediction = Self.exponential(rate * delay)
    }
    state.meanSquaredRate += coefficients.rateGain * (rate.lengthSquared - state.meanSquaredRate)
    let increment = rate * dt
    // A rate sample is the mean over its interval; when the axis turns within the interval the
    // rotation is not exp(mean·dt). The two-sample coning term (Bortz; Savage 1998) restores the
    // second-order part from the previous interval's increment: negligible at high rates, a
    // clear gain at 20–50 Hz during fast tumbling.
    let v = increment + Self.cross(state.previousIncrement, increment) * (1.0 / 12)
    state.previousIncrement = increment
    let q = Self.multiply(state.inertialFromSensor, Self.exponential(v))
    state.inertialFromSensor = Self.renormalized(q)
    return rate
  }

  @inline(__always)
  static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
  }

  /// The unit quaternion of rotation vector `v` (rad); a short series for the small angles of
  /// one sample step (error below 1e-12 for |v| < 0.05), the exact form otherwise.
  @inline(__always)
  static func exponential(_ v: SIMD3<Double>) -> Quaternion {
    let a2 = v.lengthSquared
    if a2 < 0.0025 {
      let w = 1 - a2 * 0.125 + a2 * a2 * (1.0 / 384)
      let s = 0.5 - a2 * (1.0 / 48) + a2 * a2 * (1.0 / 3840)
      return Quaternion(w: w, x: s * v.x, y: s * v.y, z: s * v.z)
    }
    return Quaternion(rotationVector: v)
  }

  /// Whether dip angles given by their sines `s` and `reference` differ by more than `tolerance`
  /// (rad), to first order: |Δs| > tolerance·cos(dip), compared squared (cos² = 1 − s², at
  /// least 1e-4).
  @inline(__always)
  static func dipDiffers(_ s: Double, _ reference: Double, tolerance: Double) -> Bool {
    let d = s - reference
    return d * d > tolerance * tolerance * Swift.max(1 - reference * reference, 1e-4)
  }

  /// `atan2(y, x)` for heading errors: near the positive x axis (|y/x| < 0.1, the usual case in
  /// steady state) the rational approximation `r(15 + 4r²)/(15 + 9r²)` of `atan r` (error below
  /// 3e-9 rad there), exact elsewhere — so large initial errors are removed exactly.
  @inline(__always)
  static func fastAtan2(_ y: Double, _ x: Double) -> Double {
    if x > 0 && Swift.abs(y) < 0.1 * x {
      let r = y / x
      let r2 = r * r
      return r * (15 + 4 * r2) / (15 + 9 * r2)
    }
    return Double.atan2(y, x)
  }

  /// `a ⊗ b`, spelled out so that it is always inlined in the per-sample path.
  @inline(__always) @usableFromInline
  static func multiply(_ a: Quaternion, _ b: Quaternion) -> Quaternion {
    Quaternion(
      w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
      x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
      y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
      z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
  }

  /// `q ⊗ (0, v) ⊗ q*` for a unit quaternion, always inlined.
  @inline(__always)
  static func rotate(_ q: Quaternion, _ v: SIMD3<Double>) -> SIMD3<Double> {
    let tx = 2 * (q.y * v.z - q.z * v.y)
    let ty = 2 * (q.z * v.x - q.x * v.z)
    let tz = 2 * (q.x * v.y - q.y * v.x)
    return SIMD3(
      v.x + q.w * tx + (q.y * tz - q.z * ty),
      v.y + q.w * ty + (q.z * tx - q.x * tz),
      v.z + q.w * tz + (q.x * ty - q.y * tx))
  }

  /// Pulls a quaternion whose length is already within rounding of one back to unit length with
  /// one Newton step for `1/√(|q|²)` (no square root or division); products of unit quaternions
  /// only need this.
  @inline(__always)
  static func renormalized(_ q: Quaternion) -> Quaternion {
    let s = 1.5 - 0.5 * q.lengthSquared
    return Quaternion(w: q.w * s, x: q.x * s, y: q.y * s, z: q.z * s)
  }

  // MARK: - Inclination

  /// One inclination update from the specific force `accelerometer` (m/s², sensor frame), which
  /// describes the device `rotationSince` (rotation vector, rad, sensor frame) before the
  /// attitude's instant.
  @inline(__always)
  mutating func correctInclination(
    _ accelerometer: SIMD3<Double>, rotationSince: SIMD3<Double>, dt: Double, useForBias: Bool
  ) {
    // The sample in the attitude's sensor frame: rotating the device by θ turns a fixed vector
    // by −θ in the sensor frame (`turned`).
    let sample = Self.turned(accelerometer, by: rotationSince)
    let inInertial = Self.rotate(state.inertialFromSensor, sample)
    let filtered = state.inertialAcceleration.update(inInertial)
    state.meanSquaredAccelerationDeviation +=
      coefficients.rateGain
      * ((inInertial - filtered).lengthSquared - state.meanSquaredAccelerationDeviation)
    let inEarth = Self.rotate(state.earthFromInertial, filtered)
    let norm2 = inEarth.lengthSquared
    guard norm2 > 1e-12 else { return }
    // The shortest rotation taking the filtered "up" v onto earth z (a horizontal axis): the
    // low-pass filter already smooths it, so it is applied in full. Unnormalised it is
    // (|v| + v_z, v_y, −v_x, 0), of squared length 2|v|(|v| + v_z).
    let n = norm2.squareRoot()
    let cw = n + inEarth.z
    guard cw > 1e-9 * n else {
      // Exactly upside down: half turn about x.
      state.earthFromInertial = Quaternion(w: 0, x: 1, y: 0, z: 0) * state.earthFromInertial
      return
    }
    let scale = 1 / (2 * n * cw).squareRoot()
    let correction = Quaternion(w: cw * scale, x: inEarth.y * scale, y: -inEarth.x * scale, z: 0)
    state.earthFromInertial = Self.renormalized(Self.multiply(correction, state.earthFromInertial))
    // Rotation vector of the correction (2·imag/w, accurate to second order in the small angle).
    let rv = SIMD3(inEarth.y, -inEarth.x, 0) * (2 / cw)
    state.lastInclinationCorrection = rv

    if useForBias {
      estimateBiasInMotion(correction: rv, dt: dt, attitude: filteredAttitude6D)
    }
  }

  // MARK: - Bias

  @inline(__always)
  mutating func propagateBiasCovariance(dt: Double) {
    let q = coefficients.biasProcessVariance * (dt / coefficients.samplePeriod)
    var p = state.biasCovariance
    p.row1.x = Swift.min(p.row1.x + q, coefficients.biasInitialVariance)
    p.row2.y = Swift.min(p.row2.y + q, coefficients.biasInitialVariance)
    p.row3.z = Swift.min(p.row3.z + q, coefficients.biasInitialVariance)
    state.biasCovariance = p
  }

  /// The inclination correction undoes the drift that the bias error causes; seen through the
  /// same low-pass filter as the accelerometer, `−correction/dt ≈ LP(R)·b − LP(R·b̂)` for the
  /// horizontal rows of the 6D attitude matrix `R`. A two-row Kalman update on the bias.
  @inline(__always)
  mutating func estimateBiasInMotion(correction: SIMD3<Double>, dt: Double, attitude q: Quaternion)
  {
    // The bias changes slowly, and the model's filters have a 3 s time constant: everything
    // below runs every few samples on the summed corrections (filters designed for that rate).
    state.correctionSum += correction
    state.correctionTime += dt
    state.motionBiasCounter += 1
    guard state.motionBiasCounter >= coefficients.biasUpdateInterval else { return }
    state.motionBiasCounter = 0
    let correction = state.correctionSum
    let dt = state.correctionTime
    state.correctionSum = .zero
    state.correctionTime = 0
    let (w, x, y, z) = (q.w, q.x, q.y, q.z)
    let r1 = SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y))
    let r2 = SIMD3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x))
    let b = state.gyroscopeBias
    let h1 = state.attitudeRow1.update(r1)
    let h2 = state.attitudeRow2.update(r2)
    let rb = state.attitudeTimesBias.update(SIMD3((r1 * b).sum(), (r2 * b).sum(), 0))
    guard state.inertialAcceleration.isWarm, !state.isRestDetected else { return }

    let z1 = -correction.x / dt + rb.x
    let z2 = -correction.y / dt + rb.y
    let p = state.biasCovariance
    // PHᵀ (3×2) and S = HPHᵀ + R (2×2).
    let ph1 = p * h1
    let ph2 = p * h2
    let r =
      coefficients.motionBiasVarianceTime / dt
      * (1 + state.meanSquaredRate * coefficients.motionBiasRateFactor
        + state.meanSquaredAccelerationDeviation * coefficients.motionBiasAccelerationFactor)
    let s11 = (h1 * ph1).sum() + r
    let s12 = (h1 * ph2).sum()
    let s22 = (h2 * ph2).sum() + r
    let det = s11 * s22 - s12 * s12
    guard det > 0 else { return }
    let inv = 1 / det
    let i11 = s22 * inv, i12 = -s12 * inv, i22 = s11 * inv
    let k1 = ph1 * i11 + ph2 * i12
    let k2 = ph1 * i12 + ph2 * i22
    let e1 = z1 - (h1 * b).sum()
    let e2 = z2 - (h2 * b).sum()
    state.gyroscopeBias = clampBias(b + k1 * e1 + k2 * e2)
    // P ← P − K H P, with HP = (PHᵀ)ᵀ since P is symmetric.
    state.biasCovariance = Matrix3(
      row1: p.row1 - k1.x * ph1 - k2.x * ph2,
      row2: p.row2 - k1.y * ph1 - k2.y * ph2,
      row3: p.row3 - k1.z * ph1 - k2.z * ph2)
  }

  @inline(__always)
  func clampBias(_ b: SIMD3<Double>) -> SIMD3<Double> {
    let l = parameters.biasLimit
    return b.clamped(lowerBound: SIMD3(repeating: -l), upperBound: SIMD3(repeating: l))
  }

  // MARK: - Rest

  @inline(__always)
  mutating func detectRest(
    gyroscope: SIMD3<Double>, accelerometer: SIMD3<Double>, dt: Double, valid: Bool
  ) {
    let gyroscopeMean = state.restGyroscope.update(gyroscope)
    let accelerometerMean = state.restAccelerometer.update(accelerometer)
    let thG = parameters.restGyroscopeThreshold
    let thA = parameters.restAccelerometerThreshold
    let thD = parameters.restGyroscopeDeviationThreshold
    let still =
      valid && gyroscopeMean.lengthSquared < thG * thG
      && (gyroscope - gyroscopeMean).lengthSquared < thD * thD
      && (accelerometer - accelerometerMean).lengthSquared < thA * thA
    state.restDuration = still ? state.restDuration + dt : 0
    state.isRestDetected = state.restDuration >= parameters.restMinimumDuration
    if state.isRestDetected {
      state.restBiasCounter += 1
      if state.restBiasCounter >= coefficients.biasUpdateInterval {
        state.restBiasCounter = 0
        estimateBiasAtRest(gyroscopeMean)
      }
    }
  }

  /// Kalman update with the low-pass filtered gyroscope as a direct measurement of the bias.
  mutating func estimateBiasAtRest(_ measurement: SIMD3<Double>) {
    let p = state.biasCovariance
    let r = coefficients.restBiasVariance
    guard let sInverse = (p + .diagonal(r)).inverse else { return }
    let k = p * sInverse
    let b = state.gyroscopeBias
    state.gyroscopeBias = clampBias(b + k * (measurement - b))
    state.biasCovariance = p - k * p
  }

  // MARK: - Heading uncertainty

  /// Grows the heading's error variance over `dt` seconds without magnetic information: the
  /// gyroscope's white noise, the bias uncertainty about the vertical (through the covariance of
  /// the two, so that a bias error adds linearly in time) and the scale uncertainty times the
  /// angle turned. Runs with the bias covariance, a few times a second.
  mutating func propagateHeadingUncertainty(dt: Double) {
    let up = filteredAttitude6D.conjugate.act(on: SIMD3(0, 0, 1))
    let verticalBiasVariance = Swift.max((up * (state.biasCovariance * up)).sum(), 0)
    // The recent RMS rate bounds the rate about the vertical. A scale error moves the heading in
    // proportion to the angle turned; turns back and forth undo it, so it is counted as
    // independent per step (a fraction of a second) rather than adding up over a whole trial.
    let scaleError = parameters.gyroscopeScaleUncertainty * state.meanSquaredRate.squareRoot() * dt
    let variance =
      state.headingErrorVariance + 2 * dt * state.headingBiasCovariance
      + dt * dt * verticalBiasVariance
      + parameters.gyroscopeNoiseDensity * parameters.gyroscopeNoiseDensity * dt
      + scaleError * scaleError
    let bounded = Swift.max(0, Swift.min(variance, Double.pi * Double.pi / 3))
    // Cauchy–Schwarz: the bias filter may have shrunk the bias variance since.
    let limit = (bounded * verticalBiasVariance).squareRoot()
    let covariance = state.headingBiasCovariance + dt * verticalBiasVariance
    state.headingErrorVariance = bounded
    state.headingBiasCovariance = Swift.max(-limit, Swift.min(covariance, limit))
  }

  /// Shrinks the heading's error variance for a correction of `gain` (the share of the heading's
  /// disagreement with the field that is removed): a first-order filter leaves `(1 − g)²` of the
  /// old variance and takes `g(2 − g)` of the field's own, so steady corrections settle at the
  /// field's. That is the error nothing here can observe (``Parameters/calibratedHeadingSigma``
  /// or ``Parameters/uncalibratedHeadingSigma``), taken as systematic: a field direction that
  /// merely jitters from sample to sample is averaged out by the filter and adds nothing worth
  /// counting. A field whose strength or dip left the reference's is rejected as disturbed and
  /// corrects nothing (gain 0), so the variance keeps growing instead.
  mutating func contractHeadingUncertainty(gain: Double) {
    let sigma =
      usesCalibrationForHeading
      ? parameters.calibratedHeadingSigma : parameters.uncalibratedHeadingSigma
    let keep = 1 - gain
    state.headingErrorVariance =
      keep * keep * state.headingErrorVariance + gain * (2 - gain) * sigma * sigma
    state.headingBiasCovariance *= keep
  }

  // MARK: - Heading

  /// One heading update from the raw field `raw` (µT) over `dt` seconds: the calibration
  /// hand-off, the disturbance check, a possible new reference field, then the heading step.
  /// The field describes the device `rotationSince` (rotation vector, rad, sensor frame) before
  /// the attitude's instant, so it is compared with the attitude of that instant.
  mutating func correctHeading(
    _ raw: SIMD3<Double>, rotationSince: SIMD3<Double>, gyroscope: SIMD3<Double>, dt: Double
  ) {
    let attitude = Self.multiply(filteredAttitude6D, Self.exponential(-rotationSince))
    let field = fieldForHeading(raw, attitude: attitude, dt: dt)
    let inEarth = Self.rotate(attitude, field)
    let norm = inEarth.length
    guard norm > 1e-9 else { return }
    // The dip is tracked as its sine (no asin per sample); thresholds in angle are converted
    // with the local slope d(sin)/d(dip) = cos(dip).
    let dip = Swift.max(-1, Swift.min(1, -inEarth.z / norm))
    state.headingPeriodRatio = dt / coefficients.headingPeriod
    var gain = trackFieldDisturbance(norm: norm, dip: dip, dt: dt)
    if acceptsNewField(gyroscope: gyroscope, dt: dt) { gain = 1 }
    guard gain > 0 else { return }
    stepHeading(toward: inEarth, norm: norm, gain: gain)
  }

  /// A first-order gain `g` designed for the nominal heading period, for the latest heading
  /// update's actual time (``State/headingPeriodRatio`` periods): `1 − (1 − g)^ratio`; `g` itself
  /// when the ratio is within 1 % of one (regular samples: no power per update).
  @inline(__always)
  func scaledGain(_ g: Double) -> Double {
    let ratio = state.headingPeriodRatio
    guard Swift.abs(ratio - 1) > 0.01 else { return g }
    return 1 - Double.pow(1 - g, ratio)
  }

  /// Feeds the calibrator and returns the field the heading uses (µT, sensor frame).
  ///
  /// The heading uses the calibrated field once the calibration is trusted (fitted from enough
  /// orientations) or horizontal-only (fitted from turning about the vertical, which leaves the
  /// heading unbiased); before, the raw field (the disturbance rejection copes with mild iron).
  /// When the calibration in use changes, the disturbance reference restarts from it.
  mutating func fieldForHeading(
    _ raw: SIMD3<Double>, attitude: Quaternion, dt: Double
  ) -> SIMD3<Double> {
    let calibrationChanges = state.magnetometerCalibrator.trustedCalibrationChangeCount
    state.magnetometerCalibrator.update(field: raw, earthFromSensor: attitude, samplePeriod: dt)
    let isCalibrated = usesCalibrationForHeading
    if parameters.usesCalibratedFieldForHeading
      && state.magnetometerCalibrator.trustedCalibrationChangeCount != calibrationChanges
    {
      restartFieldReference(
        earthField: isCalibrated ? state.magnetometerCalibrator.adoptedEarthField : nil)
    }
    return isCalibrated ? state.magnetometerCalibrator.calibrate(raw) : raw
  }

  /// Filters the field's norm (µT) and dip sine, compares them with the reference and returns
  /// the heading gain: 1 when undisturbed long enough, a reduced gain after the longest
  /// rejection, 0 otherwise. Updates ``State/isMagneticDisturbanceDetected``.
  mutating func trackFieldDisturbance(norm: Double, dip: Double, dt: Double) -> Double {
    let kc = scaledGain(coefficients.magneticCurrentGain)
    if !state.hasFieldReference {
      state.currentFieldNorm = norm
      state.currentFieldDip = dip
      state.referenceFieldNorm = norm
      state.referenceFieldDip = dip
      state.candidateFieldNorm = norm
      state.candidateFieldDip = dip
      state.hasFieldReference = true
    } else {
      state.currentFieldNorm += kc * (norm - state.currentFieldNorm)
      state.currentFieldDip += kc * (dip - state.currentFieldDip)
    }
    let curNorm = state.currentFieldNorm
    let curDip = state.currentFieldDip
    let disturbed =
      Swift.abs(curNorm - state.referenceFieldNorm)
      > parameters.magneticNormTolerance * state.referenceFieldNorm
      || Self.dipDiffers(
        curDip, state.referenceFieldDip, tolerance: parameters.magneticDipTolerance)
    var gain = 0.0
    if !disturbed {
      state.undisturbedTime += dt
      if state.undisturbedTime >= parameters.magneticMinimumUndisturbedTime
        || !state.isHeadingInitialized
      {
        gain = 1
        let kr = scaledGain(coefficients.magneticReferenceGain)
        state.referenceFieldNorm += kr * (curNorm - state.referenceFieldNorm)
        state.referenceFieldDip += kr * (curDip - state.referenceFieldDip)
      }
      state.rejectionTime = Swift.max(
        state.rejectionTime - dt * parameters.magneticRejectionFactor, 0)
    } else {
      state.undisturbedTime = 0
      state.rejectionTime += dt
      if state.rejectionTime > parameters.magneticMaximumRejectionTime {
        gain = 1 / parameters.magneticRejectionFactor
      }
    }
    state.isMagneticDisturbanceDetected = disturbed
    return gain
  }

  /// Tracks a candidate field; returns true when a steady new field seen during motion
  /// replaced a disturbed reference (the environment changed), so the heading corrects in full.
  mutating func acceptsNewField(gyroscope: SIMD3<Double>, dt: Double) -> Bool {
    let curNorm = state.currentFieldNorm
    let curDip = state.currentFieldDip
    let normTol = parameters.magneticNormTolerance
    let dipTol = parameters.magneticDipTolerance
    var accepted = false
    if Swift.abs(curNorm - state.candidateFieldNorm) > normTol * state.candidateFieldNorm
      || Self.dipDiffers(curDip, state.candidateFieldDip, tolerance: dipTol)
    {
      state.candidateFieldNorm = curNorm
      state.candidateFieldDip = curDip
      state.candidateFieldTime = 0
    } else {
      let kr = scaledGain(coefficients.magneticReferenceGain)
      state.candidateFieldNorm += kr * (curNorm - state.candidateFieldNorm)
      state.candidateFieldDip += kr * (curDip - state.candidateFieldDip)
      if (gyroscope - state.gyroscopeBias).lengthSquared
        >= parameters.magneticNewFieldMinimumRate * parameters.magneticNewFieldMinimumRate
      {
        state.candidateFieldTime += dt
      }
      let needed =
        state.isFieldReferenceConfirmed
        ? parameters.magneticNewFieldTime : parameters.magneticFirstFieldTime
      if state.isMagneticDisturbanceDetected && state.candidateFieldTime >= needed {
        state.referenceFieldNorm = state.candidateFieldNorm
        state.referenceFieldDip = state.candidateFieldDip
        state.isFieldReferenceConfirmed = true
        state.isMagneticDisturbanceDetected = false
        state.undisturbedTime = parameters.magneticMinimumUndisturbedTime
        state.rejectionTime = 0
        accepted = true
      }
    }
    if !state.isFieldReferenceConfirmed
      && state.candidateFieldTime >= parameters.magneticFirstFieldTime
    {
      state.isFieldReferenceConfirmed = true
    }
    return accepted
  }

  /// Turns the heading offset toward the horizontal part of `inEarth` (the field in the 6D earth
  /// frame, µT, of length `norm`) by `gain` times the heading gain.
  mutating func stepHeading(toward inEarth: SIMD3<Double>, norm: Double, gain: Double) {
    let horizontal2 = inEarth.x * inEarth.x + inEarth.y * inEarth.y
    guard horizontal2 > 1e-6 * norm * norm else { return }
    // Heading error: the angle of the horizontal field after the current offset rotation
    // (cos δ = w² − z², sin δ = 2wz of the cached rotation); north is +x in NWU.
    let h = state.headingRotation
    let c = h.w * h.w - h.z * h.z
    let sn = 2 * h.w * h.z
    let x = c * inEarth.x - sn * inEarth.y
    let y = sn * inEarth.x + c * inEarth.y
    let error = -Self.fastAtan2(y, x)
    state.headingSampleCount += 1
    // Converge at once from the first samples, then settle to the nominal time constant.
    let k = Swift.max(
      scaledGain(coefficients.magnetometerGain), 1 / Double(state.headingSampleCount))
    contractHeadingUncertainty(gain: Swift.min(gain * k, 1))
    let step = gain * k * error
    var offset = state.headingOffset + step
    // |step| ≤ π, so one wrap suffices (cheaper than a general fmod-based wrap).
    if offset > .pi { offset -= 2 * .pi } else if offset < -.pi { offset += 2 * .pi }
    state.headingOffset = offset
    // Turn the cached rotation (w, 0, 0, z) by `step` about z (series for the half-angle
    // cosine and sine; steps are small), then renormalise.
    let half2 = step * step / 4
    let halfCosine = 1 - half2 / 2 + half2 * half2 / 24
    let halfSine = step / 2 * (1 - half2 / 6)
    let hw = h.w * halfCosine - h.z * halfSine
    let hz = h.z * halfCosine + h.w * halfSine
    let n = 1.5 - 0.5 * (hw * hw + hz * hz)
    if Swift.abs(step) < 0.1 {
      state.headingRotation = Quaternion(w: hw * n, x: 0, y: 0, z: hz * n)
    } else {
      state.headingRotation = Quaternion.aboutZ(state.headingOffset)
    }
    state.isHeadingInitialized = true
  }
}

extension AttitudeEstimator {
  /// Restarts the magnetic disturbance reference and the heading convergence after the field
  /// used for the heading changed calibration.
  ///
  /// The newly calibrated field has a different norm and dip from the field before, which must
  /// not be taken for a disturbance (the rejection would pause the heading for up to
  /// ``Parameters/magneticFirstFieldTime``), and the heading learnt from the old field is biased,
  /// so it converges afresh as at initialisation. `earthField` is the calibration fit's earth field
  /// (µT, z up), a confirmed reference; `nil` restarts from the next sample.
  mutating func restartFieldReference(earthField: SIMD3<Double>?) {
    state.headingSampleCount = 0
    state.undisturbedTime = parameters.magneticMinimumUndisturbedTime
    state.rejectionTime = 0
    state.candidateFieldTime = 0
    state.isMagneticDisturbanceDetected = false
    guard let earthField, earthField.length > 1e-9 else {
      state.hasFieldReference = false
      return
    }
    let norm = earthField.length
    let dip = Swift.max(-1, Swift.min(1, -earthField.z / norm))
    state.referenceFieldNorm = norm
    state.referenceFieldDip = dip
    state.currentFieldNorm = norm
    state.currentFieldDip = dip
    state.candidateFieldNorm = norm
    state.candidateFieldDip = dip
    state.hasFieldReference = true
    state.isFieldReferenceConfirmed = true
  }

  /// Starts with the magnetometer calibration `calibrator` ended with (e.g. a backward pass over
  /// the same recording): its offset, soft iron, accuracy and trust, but none of its accumulated
  /// sums, so this estimator's own fits still start from its own data. For
  /// ``OfflineAttitudeEstimator``'s passes.
  package mutating func seedMagnetometerCalibration(from calibrator: MagnetometerCalibrator) {
    state.magnetometerCalibrator.adoptCalibration(of: calibrator)
  }

  /// Starts the bias estimate from a known value `bias` (rad/s) with standard deviation `sigma`
  /// (rad/s), e.g. from a backward pass (``OfflineAttitudeEstimator``). A bias or sigma that is
  /// not finite is ignored, and the estimate starts as it would have: a NaN sigma would make the
  /// bias covariance NaN (the invariant check traps on it in debug builds), and a NaN bias would
  /// be clamped to an arbitrary bound.
  package mutating func seedGyroscopeBias(_ bias: SIMD3<Double>, sigma: Double) {
    guard bias.isFinite, sigma.isFinite else { return }
    state.gyroscopeBias = clampBias(bias)
    let v = Swift.min(sigma * sigma, coefficients.biasInitialVariance)
    state.biasCovariance = .diagonal(v)
  }
}
