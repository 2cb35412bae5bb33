// SPDX-License-Identifier: Apache-2.0

extension AttitudeEstimator.Parameters {
  /// The default parameters told that the inputs are Core Motion's device-motion outputs
  /// (`rotationRate`, `gravity + userAcceleration`): instants computed together for one
  /// timestamp, as iPhone logging apps record them, not a raw gyroscope's interval means.
  ///
  /// The estimator integrates each rate over the interval before its timestamp, right for an
  /// interval mean but, for an instant, half an interval ahead of the timestamp; so the outputs
  /// are turned back by half of the current interval (``gyroscopeDelayIntervals`` −0.5, with no
  /// raw sensor's filter delay), and each acceleration, an instant at its timestamp, is compared
  /// with the attitude half an interval before the attitude's own instant
  /// (``sampleAveragingLag`` 0.5, the default). Measured on MotionSense against each recording's
  /// own centred reference: `Benchmarks/fusion-comparison/README.md`.
  public static var deviceMotionInstants: Self {
    var parameters = Self.default
    parameters.gyroscopeDelay = 0
    parameters.gyroscopeDelayIntervals = -0.5
    parameters.sampleAveragingLag = 0.5
    return parameters
  }

  /// The gyroscope's delay over a sample interval of `interval` s, s: ``gyroscopeDelay`` plus
  /// ``gyroscopeDelayIntervals`` of the interval (a share that is not finite counts as none).
  @inline(__always)
  package func gyroscopeDelay(over interval: Double) -> Double {
    gyroscopeDelay + (gyroscopeDelayIntervals.isFinite ? gyroscopeDelayIntervals * interval : 0)
  }
}
