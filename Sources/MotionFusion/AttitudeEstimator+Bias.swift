// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension AttitudeEstimator {
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
