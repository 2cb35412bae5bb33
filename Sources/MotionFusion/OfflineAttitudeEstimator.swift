// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Non-causal attitude estimation over a whole recording: the real-time estimator run forward,
/// backward and forward again, each pass starting from the bias the previous one ended with (the
/// last pass also from the backward pass's magnetometer calibration when the first pass confirms
/// it), and the last two passes blended sample by sample.
///
/// Running backward (time reversed, angular rate negated) gives an estimate whose filter lags point
/// the other way, so the blend cancels most lag errors, and neither pass has to converge from
/// scratch in the evaluated part because each starts with a converged bias. Near either end the
/// blend leans on the pass that has already run longest.
public enum OfflineAttitudeEstimator {
  /// Time over which a pass's weight ramps up from its starting end, s. Default: 10 s.
  public static let defaultConvergenceTime = 10.0

  /// The sensor-to-earth attitude at every sample of a recording: 9D (x to magnetic north) when
  /// `magnetometer` is given, otherwise 6D with the heading of the first forward pass.
  ///
  /// `timestamps` must increase, with one value of each other array per timestamp (a mismatch is a
  /// programming error and traps); samples the real-time estimator would skip keep the previous
  /// attitude.
  public static func estimate(
    timestamps: [Double],
    gyroscope: [SIMD3<Double>],
    accelerometer: [SIMD3<Double>],
    magnetometer: [SIMD3<Double>]?,
    samplePeriod: Double,
    parameters: AttitudeEstimator.Parameters = .default,
    convergenceTime: Double = defaultConvergenceTime
  ) -> [Quaternion] {
    estimateWithBias(
      timestamps: timestamps, gyroscope: gyroscope, accelerometer: accelerometer,
      magnetometer: magnetometer, samplePeriod: samplePeriod, parameters: parameters,
      convergenceTime: convergenceTime
    ).attitudes
  }

  /// ``estimate(timestamps:gyroscope:accelerometer:magnetometer:samplePeriod:parameters:convergenceTime:)``
  /// together with the gyroscope bias in rad/s that the first forward pass converged to over the
  /// whole recording (the best constant bias estimate the recording gives; zero when empty).
  public static func estimateWithBias(
    timestamps: [Double],
    gyroscope: [SIMD3<Double>],
    accelerometer: [SIMD3<Double>],
    magnetometer: [SIMD3<Double>]?,
    samplePeriod: Double,
    parameters: AttitudeEstimator.Parameters = .default,
    convergenceTime: Double = defaultConvergenceTime
  ) -> (attitudes: [Quaternion], gyroscopeBias: SIMD3<Double>) {
    precondition(
      gyroscope.count == timestamps.count && accelerometer.count == timestamps.count
        && (magnetometer?.count ?? timestamps.count) == timestamps.count,
      "OfflineAttitudeEstimator: one gyroscope, accelerometer (and magnetometer) value per timestamp"
    )
    let inputs = OfflineAttitudeInputArrays(
      timestamps: timestamps, gyroscopes: gyroscope, accelerometers: accelerometer,
      magnetometers: magnetometer)
    let result = estimate(
      inputs, samplePeriod: samplePeriod, parameters: parameters,
      convergenceTime: convergenceTime)
    return (Array(result), result.gyroscopeBias)
  }

  /// The sensor-to-earth attitude at every sample of `inputs`: 9D (x to magnetic north) when they
  /// include the magnetometer, otherwise 6D with the heading of the first forward pass.
  ///
  /// Besides the inputs this holds two attitudes per sample in single precision (32 bytes) while
  /// it runs and one (16 bytes) in the result. Samples the real-time estimator would skip keep the
  /// previous attitude.
  public static func estimate(
    _ inputs: some OfflineAttitudeInputs,
    samplePeriod: Double,
    parameters: AttitudeEstimator.Parameters = .default,
    convergenceTime: Double = defaultConvergenceTime
  ) -> OfflineAttitudes {
    let n = inputs.count
    guard n > 0 else { return OfflineAttitudes(attitudes: [], gyroscopeBias: .zero) }
    let unset = SinglePrecisionQuaternion(.identity)
    var backward = [SinglePrecisionQuaternion](repeating: unset, count: n)
    var forward = [SinglePrecisionQuaternion](repeating: unset, count: n)
    let bias = estimate(
      inputs, samplePeriod: samplePeriod, parameters: parameters,
      convergenceTime: convergenceTime, backward: &backward, result: &forward)
    return OfflineAttitudes(attitudes: forward, gyroscopeBias: bias)
  }

  /// The estimate of ``estimate(_:samplePeriod:parameters:convergenceTime:)`` with the two
  /// passes kept in stores the caller provides: the attitude of sample `i` ends in `result[i]`
  /// (the store of the last forward pass, blended in place); `backward` is scratch space. Returns
  /// the gyroscope bias the first forward pass converged to (zero when `inputs` is empty).
  ///
  /// Each store is written at every index in `0..<inputs.count` before that index is read, and
  /// every pass walks its stores and `inputs` in order, so stores that keep only a window in
  /// memory (a file behind a block cache) hold the whole estimate in bounded memory.
  package static func estimate<Store: OfflineAttitudeStore>(
    _ inputs: some OfflineAttitudeInputs,
    samplePeriod: Double,
    parameters: AttitudeEstimator.Parameters = .default,
    convergenceTime: Double = defaultConvergenceTime,
    backward: inout Store,
    result forward: inout Store
  ) -> SIMD3<Double> {
    let n = inputs.count
    guard n > 0 else { return .zero }
    let useMagnetometer = inputs.hasMagnetometer
    func attitude(_ estimator: AttitudeEstimator) -> SinglePrecisionQuaternion {
      SinglePrecisionQuaternion(
        useMagnetometer ? estimator.earthFromSensor9D : estimator.earthFromSensor6D)
    }

    // Readings of sensors on their own clocks carry their own timestamps into every pass.
    let ages = inputs.hasSensorAges

    // Pass 1 (forward) only supplies a bias for the backward pass.
    var first = AttitudeEstimator(parameters: parameters, samplePeriod: samplePeriod)
    for i in 0..<n {
      let t = inputs.timestamp(at: i)
      first.update(
        timestamp: t, gyroscope: inputs.gyroscope(at: i),
        accelerometer: inputs.accelerometer(at: i), magnetometer: inputs.magnetometer(at: i),
        accelerometerTimestamp: ages ? t - inputs.accelerometerAge(at: i) : nil,
        magnetometerTimestamp: ages ? t - inputs.magnetometerAge(at: i) : nil)
    }

    // Pass 2 (backward).
    var backwardParameters = parameters
    // The gyroscope delay is physical: extrapolate forward in real time, i.e. backward in the
    // reversed pass's time. Likewise an accelerometer or magnetometer sample describes an instant
    // before its timestamp, which in reversed time comes after it.
    // Instants (`deviceMotionInstants`) too: going backward, sample i+1's rate is integrated from
    // t[i+1] down to t[i], its instant at the reversed interval's start, so the attitude is half
    // an interval *behind* in reversed time (forward it is ahead) and +0.5 intervals turns it to
    // t[i]; the acceleration, an instant at t[i], is then half an interval after the attitude
    // (lag −0.5). Checked by `OfflineReplaySampleTimingTests` at the backward-weighted start.
    backwardParameters.gyroscopeDelay = -parameters.gyroscopeDelay
    backwardParameters.gyroscopeDelayIntervals = -parameters.gyroscopeDelayIntervals
    backwardParameters.sampleAveragingLag = -parameters.sampleAveragingLag
    backwardParameters.magnetometerDelay = -parameters.magnetometerDelay
    var reversed = AttitudeEstimator(parameters: backwardParameters, samplePeriod: samplePeriod)
    reversed.seedGyroscopeBias(-first.gyroscopeBias, sigma: first.gyroscopeBiasSigma)
    for i in stride(from: n - 1, through: 0, by: -1) {
      // The forward pass integrates the interval (t[i-1], t[i]] with the rate of sample i; going
      // backward from t[i+1] to t[i] must use the same rate, that of sample i+1, or the two
      // passes differ by one sample of rotation (over 1° at fast motion).
      // A reading stamped before t[i] (a sensor on its own clock) lies after it in reversed time.
      let t = inputs.timestamp(at: i)
      reversed.update(
        timestamp: -t,
        gyroscope: -inputs.gyroscope(at: Swift.min(i + 1, n - 1)),
        accelerometer: inputs.accelerometer(at: i), magnetometer: inputs.magnetometer(at: i),
        accelerometerTimestamp: ages ? -(t - inputs.accelerometerAge(at: i)) : nil,
        magnetometerTimestamp: ages ? -(t - inputs.magnetometerAge(at: i)) : nil)
      backward[i] = attitude(reversed)
    }

    // Pass 3 (forward) from the bias the backward pass found at the start.
    var third = AttitudeEstimator(parameters: parameters, samplePeriod: samplePeriod)
    third.seedGyroscopeBias(-reversed.gyroscopeBias, sigma: reversed.gyroscopeBiasSigma)
    // The magnetometer calibration is in the sensor frame, the same either way in time: starting
    // with the one the backward pass ended with calibrates the heading from the first sample,
    // when the forward pass confirms it.
    if confirms(first.state.magnetometerCalibrator, reversed.state.magnetometerCalibrator) {
      third.seedMagnetometerCalibration(from: reversed.state.magnetometerCalibrator)
    }
    for i in 0..<n {
      let t = inputs.timestamp(at: i)
      third.update(
        timestamp: t, gyroscope: inputs.gyroscope(at: i),
        accelerometer: inputs.accelerometer(at: i), magnetometer: inputs.magnetometer(at: i),
        accelerometerTimestamp: ages ? t - inputs.accelerometerAge(at: i) : nil,
        magnetometerTimestamp: ages ? t - inputs.magnetometerAge(at: i) : nil)
      forward[i] = attitude(third)
    }

    let start = inputs.timestamp(at: 0)
    let end = inputs.timestamp(at: n - 1)
    let ramp = Swift.max(convergenceTime, 1e-9)
    func weights(_ t: Double) -> (Double, Double) {
      (
        Swift.min(1, Swift.max(1e-3, (t - start) / ramp)),
        Swift.min(1, Swift.max(1e-3, (end - t) / ramp))
      )
    }

    // Without a magnetometer the two passes have unrelated headings: align the backward one to
    // the forward one by the weighted circular mean of their heading difference.
    var alignment = Quaternion.identity
    if !useMagnetometer {
      var sine = 0.0, cosine = 0.0
      for i in 0..<n {
        let (wf, wb) = weights(inputs.timestamp(at: i))
        let d = (forward[i].doublePrecision * backward[i].doublePrecision.conjugate).normalized
        let angle = 2 * Double.atan2(d.z, d.w)
        let w = wf * wb
        sine += w * Double.sin(angle)
        cosine += w * Double.cos(angle)
      }
      alignment = Quaternion.aboutZ(Double.atan2(sine, cosine))
    }

    // The blend replaces the forward pass in place: no third store.
    for i in 0..<n {
      let (wf, wb) = weights(inputs.timestamp(at: i))
      let forwardAttitude = forward[i].doublePrecision.normalized
      let blend = forwardAttitude.slerp(
        to: alignment * backward[i].doublePrecision.normalized, fraction: wb / (wf + wb))
      // Inclination from the blend; heading from the forward pass, whose magnetic disturbance
      // handling sees the recording in its natural order (the backward heading measured worse).
      let d = (forwardAttitude * blend.conjugate).normalized
      let heading = 2 * Double.atan2(d.z, d.w)
      forward[i] = SinglePrecisionQuaternion((Quaternion.aboutZ(heading) * blend).normalized)
    }
    return first.gyroscopeBias
  }

  /// Whether the calibration the backward pass ended with may start the last pass: the first
  /// forward pass, which saw the recording in the other order, also ended with a calibration the
  /// heading may use, and its hard-iron offset is the same within
  /// ``MagnetometerCalibrator/Parameters/minimumOffsetChange`` (the calibrator's own tolerance).
  ///
  /// One pass alone can adopt a fit partly made of a disturbance (a magnet beside the device
  /// while it turns): seeded from it, the last pass would carry that error from its first sample
  /// on, where without a seed it calibrates as in real time. On BROAD this check changes two of
  /// 64 trial-rate pairs, both for the better (stationary magnet C at 95 Hz 9.90° → 2.24°, fast
  /// combined motion at 48 Hz 6.07° → 4.18°), and no other figure.
  static func confirms(
    _ forward: MagnetometerCalibrator, _ backward: MagnetometerCalibrator
  ) -> Bool {
    guard forward.isUsableForHeading, backward.isUsableForHeading else { return false }
    let difference = forward.hardIronOffset - backward.hardIronOffset
    return (difference * difference).sum()
      <= backward.parameters.minimumOffsetChange * backward.parameters.minimumOffsetChange
  }
}
