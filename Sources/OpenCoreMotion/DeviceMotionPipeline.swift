// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath
import MotionSensors

/// The fusion producer of one sensor source, shared by every manager and async sequence that wants
/// device motion from that source: one source subscription, one ``DeviceMotionEstimator`` fed with
/// every sample, and a fan-out of its estimates.
///
/// Sources whose sensors tick separately are handled by running the estimator on each gyroscope
/// sample with the latest accelerometer and magnetometer values. The estimator starts afresh each
/// time the first consumer arrives.
final class DeviceMotionPipeline: Sendable {
  /// The sensors the estimator reads.
  static let sensorsRead: SensorSet = .nineAxis

  /// The estimator's state after one gyroscope sample, in library units (SI, NWU earth frame).
  struct Estimate: Sendable {
    /// Seconds on the source's clock.
    var timestamp: Double
    /// Sensor to earth without magnetometer (arbitrary heading).
    var earthFromSensor6D: Quaternion
    /// Sensor to earth with x toward magnetic north (equal to 6D before magnetometer data).
    var earthFromSensor9D: Quaternion
    /// Whether the 9D attitude has a magnetic heading yet.
    var hasMagneticHeading: Bool
    /// Raw gyroscope, rad/s.
    var gyroscope: SIMD3<Double>
    /// Estimated gyroscope bias, rad/s.
    var gyroscopeBias: SIMD3<Double>
    /// Specific force, m/s².
    var accelerometer: SIMD3<Double>
    /// Calibrated field, µT, or `nil` without magnetometer data.
    var calibratedMagneticField: SIMD3<Double>?
    /// Accuracy of the field calibration.
    var magneticCalibrationAccuracy: MagneticCalibrationAccuracy
    /// Whether the magnetometer needs calibration motion before a magnetic heading can be trusted.
    var needsCalibrationMotion: Bool
  }

  /// What consumers receive.
  enum Event: Sendable {
    case estimate(Estimate)
    case failure(SourceFailure)
    case finished
  }

  typealias Consumer = @Sendable (Event) -> Void

  private struct State {
    var subscription: SourceSubscription?
    /// Whether a source subscription exists or is being made (set before `subscribe` is called, so
    /// that two first consumers arriving together make only one).
    var isConnected = false
    var estimator: DeviceMotionEstimator
    var latestAccelerometer: SIMD3<Double>?
    var latestMagnetometer: SIMD3<Double>?
    var lastEstimateTimestamp = -Double.infinity
  }

  let source: any SensorSource
  private let samplePeriod: Double
  private let state: Locked<State>
  /// The consumers: in subscription order, never called after their subscription's `cancel()`
  /// returns. Lock order: its delivery lock, then `state`, then its own state.
  private let consumers = SubscriberFanOut<Event>()

  private init(source: any SensorSource) {
    self.source = source
    samplePeriod = source.shortestSamplePeriod
    state = Locked(State(estimator: DeviceMotionEstimator(samplePeriod: samplePeriod)))
  }

  // MARK: Sharing

  private final class WeakPipeline {
    weak var pipeline: DeviceMotionPipeline?
    init(_ pipeline: DeviceMotionPipeline) { self.pipeline = pipeline }
  }

  private static let registry = Locked<[ObjectIdentifier: WeakPipeline]>([:])

  /// The pipeline of `source`, shared while anyone holds it.
  static func shared(for source: any SensorSource) -> DeviceMotionPipeline {
    registry.withLock { table in
      let key = ObjectIdentifier(source)
      if let existing = table[key]?.pipeline, existing.source === source { return existing }
      table = table.filter { $0.value.pipeline != nil }
      let pipeline = DeviceMotionPipeline(source: source)
      table[key] = WeakPipeline(pipeline)
      return pipeline
    }
  }

  // MARK: Consumers

  /// Adds a consumer until the returned subscription is cancelled.
  func subscribe(_ consumer: @escaping Consumer) -> SourceSubscription {
    let (id, isFirst) = state.withLock { s -> (UInt64, Bool) in
      let id = consumers.add(consumer)
      let isFirst = !s.isConnected
      if isFirst {
        s.isConnected = true
        s.estimator = DeviceMotionEstimator(samplePeriod: samplePeriod)
        s.latestAccelerometer = nil
        s.latestMagnetometer = nil
        s.lastEstimateTimestamp = -.infinity
      }
      return (id, isFirst)
    }
    if isFirst {
      // The estimator wants every sample the source can give, of the inertial sensors only (a
      // source that can switch sensors off keeps the barometer off for it).
      let subscription = source.subscribe(
        requestedSampleRate: source.supportedSampleRates.upperBound, sensors: Self.sensorsRead
      ) { [weak self] event in self?.handle(event) }
      let stillWanted = state.withLock { s -> Bool in
        // Everybody may have left while the subscription was being made.
        guard s.isConnected, !consumers.isEmpty, s.subscription == nil else { return false }
        s.subscription = subscription
        return true
      }
      if !stillWanted { subscription.cancel() }
    }
    // Strong: a consumer keeps the pipeline alive (an async sequence may outlive its manager).
    return SourceSubscription { [self] in unsubscribe(id) }
  }

  private func unsubscribe(_ id: UInt64) {
    // Removal and disconnection in one step under `state`, so that a consumer arriving meanwhile
    // either is counted here or finds the pipeline disconnected and connects it again.
    let subscription = consumers.withDeliveryLock {
      state.withLock { s -> SourceSubscription? in
        guard consumers.remove(id) else { return nil }
        s.isConnected = false
        defer { s.subscription = nil }
        return s.subscription
      }
    }
    // Outside the delivery lock: the source may be waiting for it while holding its own.
    subscription?.cancel()
  }

  // MARK: Samples

  private func handle(_ event: SourceEvent) {
    let outgoing: Event
    switch event {
    case .sample(let sample):
      guard let estimate = state.withLock({ Self.update(&$0, with: sample) }) else { return }
      outgoing = .estimate(estimate)
    case .failure(let failure):
      outgoing = .failure(failure)
    case .finished:
      outgoing = .finished
    }
    consumers.deliver(outgoing)
  }

  private static func update(_ s: inout State, with sample: MotionSample) -> Estimate? {
    if let accelerometer = sample.accelerometer, accelerometer.isFinite {
      s.latestAccelerometer = accelerometer
    }
    if let magnetometer = sample.magnetometer, magnetometer.isFinite {
      s.latestMagnetometer = magnetometer
    }
    guard let gyroscope = sample.gyroscope, let accelerometer = s.latestAccelerometer else {
      return nil
    }
    let before = s.estimator.diagnostics
    s.estimator.update(
      timestamp: sample.timestamp, gyroscope: gyroscope, accelerometer: accelerometer,
      magnetometer: s.latestMagnetometer)
    let after = s.estimator.diagnostics
    // A refused sample (non-finite, out of order) changes nothing and is not worth an update.
    // The one exception is an exactly zero accelerometer (ideal free fall): the estimator keeps its
    // attitude, and the update still reports the fall (userAcceleration = −gravity).
    let isFreeFall =
      after.zeroAccelerometerSamples > before.zeroAccelerometerSamples && before.acceptedSamples > 0
      && gyroscope.isFinite && sample.timestamp.isFinite
      && sample.timestamp > s.lastEstimateTimestamp
    guard after.acceptedSamples > before.acceptedSamples || isFreeFall else { return nil }
    s.lastEstimateTimestamp = sample.timestamp
    return Estimate(
      timestamp: sample.timestamp,
      earthFromSensor6D: s.estimator.earthFromSensor6D,
      earthFromSensor9D: s.estimator.earthFromSensor9D,
      hasMagneticHeading: s.estimator.hasMagneticHeading,
      gyroscope: gyroscope,
      gyroscopeBias: s.estimator.gyroscopeBias,
      accelerometer: accelerometer,
      calibratedMagneticField: s.estimator.calibratedMagneticField,
      magneticCalibrationAccuracy: s.estimator.magneticCalibrationAccuracy,
      needsCalibrationMotion: s.estimator.needsCalibrationMotion)
  }
}
