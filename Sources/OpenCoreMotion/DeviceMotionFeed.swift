// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionSensors

/// Feeds a source's samples, one at a time, into a ``DeviceMotionEstimator`` and says which of
/// them produced an estimate worth delivering. A value type with no knowledge of threads: the
/// in-process ``DeviceMotionPipeline`` and the motion daemon (which fuses once for all its
/// clients) each keep one.
///
/// Sources whose sensors tick separately are handled by running the estimator on each gyroscope
/// sample with the latest accelerometer and magnetometer values and their own timestamps, so
/// that each is compared with the attitude of the instant it describes.
package struct DeviceMotionFeed: Sendable {
  /// The sensors the estimator reads.
  package static let sensorsRead: SensorSet = .nineAxis

  private var estimator: DeviceMotionEstimator
  private var latestAccelerometer: SIMD3<Double>?
  private var latestMagnetometer: SIMD3<Double>?
  private var latestAccelerometerTimestamp: Double?
  private var latestMagnetometerTimestamp: Double?
  private var lastEstimateTimestamp = -Double.infinity

  /// A feed for samples nominally `samplePeriod` seconds apart, taken as `timing` says (Core
  /// Motion's device-motion instants get ``AttitudeEstimator/Parameters/deviceMotionInstants``).
  package init(samplePeriod: Double, timing: SampleTiming = .sensorOutputs) {
    estimator = DeviceMotionEstimator(
      samplePeriod: samplePeriod, parameters: timing.attitudeEstimatorParameters)
  }

  /// The estimator's counters (refused samples, resets, …).
  package var diagnostics: FusionDiagnostics { estimator.diagnostics }

  /// Feeds `sample`; returns the estimate it produced, or `nil` when it produced none (no
  /// gyroscope reading, no accelerometer reading yet, or a sample the estimator refused).
  package mutating func update(with sample: MotionSample) -> DeviceMotionEstimate? {
    if let accelerometer = sample.accelerometer, accelerometer.isFinite {
      latestAccelerometer = accelerometer
      latestAccelerometerTimestamp = sample.timestamp
    }
    if let magnetometer = sample.magnetometer, magnetometer.isFinite {
      latestMagnetometer = magnetometer
      latestMagnetometerTimestamp = sample.timestamp
    }
    guard let gyroscope = sample.gyroscope, let accelerometer = latestAccelerometer else {
      return nil
    }
    let before = estimator.diagnostics
    estimator.update(
      timestamp: sample.timestamp, gyroscope: gyroscope, accelerometer: accelerometer,
      magnetometer: latestMagnetometer, accelerometerTimestamp: latestAccelerometerTimestamp,
      magnetometerTimestamp: latestMagnetometerTimestamp)
    let after = estimator.diagnostics
    // A refused sample (non-finite, out of order) changes nothing and is not worth an update.
    // The one exception is an exactly zero accelerometer (ideal free fall): the estimator keeps its
    // attitude, and the update still reports the fall (userAcceleration = −gravity).
    let isFreeFall =
      after.zeroAccelerometerSamples > before.zeroAccelerometerSamples && before.acceptedSamples > 0
      && gyroscope.isFinite && sample.timestamp.isFinite
      && sample.timestamp > lastEstimateTimestamp
    guard after.acceptedSamples > before.acceptedSamples || isFreeFall else { return nil }
    lastEstimateTimestamp = sample.timestamp
    return estimator.estimate(
      timestamp: sample.timestamp, gyroscope: gyroscope, accelerometer: accelerometer)
  }
}

extension SampleTiming {
  /// The estimator's parameters for samples taken this way, one choice for the real-time feed and
  /// the offline replay: ``AttitudeEstimator/Parameters/deviceMotionInstants`` for Core Motion's
  /// device-motion instants, the default (raw sensor outputs) otherwise.
  package var attitudeEstimatorParameters: AttitudeEstimator.Parameters {
    switch self {
    case .sensorOutputs: .default
    case .deviceMotionInstants: .deviceMotionInstants
    }
  }
}
