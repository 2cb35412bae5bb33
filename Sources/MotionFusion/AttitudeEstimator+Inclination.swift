// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension AttitudeEstimator {
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
}
