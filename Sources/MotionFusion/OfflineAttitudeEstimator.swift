// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Non-causal attitude estimation over a whole recording: the real-time estimator run forward,
/// backward and forward again, each pass starting from the bias the previous one ended with (the
/// last pass also from the backward pass's magnetometer calibration), and the last two passes
/// blended sample by sample.
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
  /// `timestamps` must increase; samples the real-time estimator would skip keep the previous
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
    let n = timestamps.count
    guard n > 0 else { return ([], .zero) }
    let useMagnetometer = magnetometer != nil

    // Pass 1 (forward) only supplies a bias for the backward pass.
    var first = AttitudeEstimator(parameters: parameters, samplePeriod: samplePeriod)
    for i in 0..<n {
      first.update(
        timestamp: timestamps[i], gyroscope: gyroscope[i], accelerometer: accelerometer[i],
        magnetometer: magnetometer?[i])
    }

    // Pass 2 (backward).
    var backward = [Quaternion](repeating: .identity, count: n)
    var backwardParameters = parameters
    // The gyroscope delay is physical: extrapolate forward in real time, i.e. backward in the
    // reversed pass's time.
    backwardParameters.gyroscopeDelay = -parameters.gyroscopeDelay
    var reversed = AttitudeEstimator(parameters: backwardParameters, samplePeriod: samplePeriod)
    reversed.seedGyroscopeBias(-first.gyroscopeBias, sigma: first.gyroscopeBiasSigma)
    for i in stride(from: n - 1, through: 0, by: -1) {
      // The forward pass integrates the interval (t[i-1], t[i]] with the rate of sample i; going
      // backward from t[i+1] to t[i] must use the same rate, that of sample i+1, or the two
      // passes differ by one sample of rotation (over 1° at fast motion).
      reversed.update(
        timestamp: -timestamps[i], gyroscope: -gyroscope[Swift.min(i + 1, n - 1)],
        accelerometer: accelerometer[i],
        magnetometer: magnetometer?[i])
      backward[i] = useMagnetometer ? reversed.earthFromSensor9D : reversed.earthFromSensor6D
    }

    // Pass 3 (forward) from the bias the backward pass found at the start.
    var forward = [Quaternion](repeating: .identity, count: n)
    var third = AttitudeEstimator(parameters: parameters, samplePeriod: samplePeriod)
    third.seedGyroscopeBias(-reversed.gyroscopeBias, sigma: reversed.gyroscopeBiasSigma)
    // The magnetometer calibration is in the sensor frame, the same either way in time: starting
    // with the one the backward pass ended with calibrates the heading from the first sample.
    third.seedMagnetometerCalibration(from: reversed.state.magnetometerCalibrator)
    for i in 0..<n {
      third.update(
        timestamp: timestamps[i], gyroscope: gyroscope[i], accelerometer: accelerometer[i],
        magnetometer: magnetometer?[i])
      forward[i] = useMagnetometer ? third.earthFromSensor9D : third.earthFromSensor6D
    }

    let start = timestamps[0]
    let end = timestamps[n - 1]
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
        let (wf, wb) = weights(timestamps[i])
        let d = (forward[i] * backward[i].conjugate).normalized
        let angle = 2 * Double.atan2(d.z, d.w)
        let w = wf * wb
        sine += w * Double.sin(angle)
        cosine += w * Double.cos(angle)
      }
      alignment = Quaternion.aboutZ(Double.atan2(sine, cosine))
    }

    var result = [Quaternion](repeating: .identity, count: n)
    for i in 0..<n {
      let (wf, wb) = weights(timestamps[i])
      let blend = forward[i].slerp(to: alignment * backward[i], fraction: wb / (wf + wb))
      // Inclination from the blend; heading from the forward pass, whose magnetic disturbance
      // handling sees the recording in its natural order (the backward heading measured worse).
      let d = (forward[i] * blend.conjugate).normalized
      let heading = 2 * Double.atan2(d.z, d.w)
      result[i] = (Quaternion.aboutZ(heading) * blend).normalized
    }
    return (result, first.gyroscopeBias)
  }
}
