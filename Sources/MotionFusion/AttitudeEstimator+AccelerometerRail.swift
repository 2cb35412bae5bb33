// SPDX-License-Identifier: Apache-2.0

extension AttitudeEstimator {
  /// Learns the accelerometer's range from the readings and returns the clipping level to use
  /// for this sample, m/s².
  ///
  /// A saturated axis reports its limit value itself, the same number every time, while real
  /// peaks vary continuously. The state keeps only the largest axis magnitude seen at or above
  /// ``Parameters/accelerometerRailFloor`` and how many readings equalled it (within
  /// ``Parameters/accelerometerRailTolerance``): at ``Parameters/accelerometerRailRepeats``
  /// such readings that magnitude is the rail. A larger reading later proves the rail was a
  /// coincidence and becomes the new candidate, so a false rail undoes itself. One axis
  /// magnitude suffices for all three axes: phone accelerometers share one full-scale setting.
  /// Fixed-size state, no allocation.
  @inline(__always)
  static func learnAccelerometerRail(
    _ accelerometer: SIMD3<Double>, parameters: Parameters, coefficients: Coefficients,
    state: inout State
  ) -> Double {
    guard parameters.learnsAccelerometerRail else { return coefficients.accelerometerClippingLevel }
    let magnitude = Swift.max(
      Swift.abs(accelerometer.x), Swift.max(Swift.abs(accelerometer.y), Swift.abs(accelerometer.z)))
    guard magnitude >= parameters.accelerometerRailFloor else {
      return state.accelerometerClippingLevel
    }
    let tolerance = parameters.accelerometerRailTolerance * state.railCandidate
    if magnitude > state.railCandidate + tolerance {
      // A new largest magnitude: whatever was learned below it was no rail.
      state.railCandidate = magnitude
      state.railHits = 1
    } else if magnitude >= state.railCandidate - tolerance {
      state.railHits = Swift.min(state.railHits + 1, Int.max - 1)
    } else {
      return state.accelerometerClippingLevel
    }
    let learned = state.railHits >= Swift.max(parameters.accelerometerRailRepeats, 1)
    state.learnedAccelerometerRail = learned ? state.railCandidate : nil
    state.accelerometerClippingLevel =
      learned
      ? Swift.min(
        coefficients.accelerometerClippingLevel,
        state.railCandidate * coefficients.accelerometerClippingFraction)
      : coefficients.accelerometerClippingLevel
    return state.accelerometerClippingLevel
  }
}
