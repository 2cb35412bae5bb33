// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension AttitudeEstimator {
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
}
