// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath
import MotionSensors

/// The fusion producer of one sensor source, shared by every manager and async sequence that wants
/// device motion from that source: one source subscription, one ``DeviceMotionEstimator`` fed with
/// every sample (through a ``DeviceMotionFeed``), and a fan-out of its estimates. The estimator
/// starts afresh each time the first consumer arrives.
final class DeviceMotionPipeline: Sendable {
  /// The sensors the estimator reads.
  static let sensorsRead: SensorSet = DeviceMotionFeed.sensorsRead

  /// The estimator's state after one gyroscope sample, in library units (SI, NWU earth frame).
  typealias Estimate = DeviceMotionEstimate

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
    /// Counts connections: the end of a source subscription disconnects only the connection it
    /// belongs to, not one a later consumer has made since.
    var connection: UInt64 = 0
    var feed: DeviceMotionFeed
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
    state = Locked(
      State(feed: DeviceMotionFeed(samplePeriod: samplePeriod, timing: source.sampleTiming)))
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
    let (id, connection) = state.withLock { s -> (UInt64, UInt64?) in
      let id = consumers.add(consumer)
      guard !s.isConnected else { return (id, nil) }
      s.isConnected = true
      s.connection &+= 1
      s.feed = DeviceMotionFeed(samplePeriod: samplePeriod, timing: source.sampleTiming)
      return (id, s.connection)
    }
    if let connection {
      // The estimator wants every sample the source can give, of the inertial sensors only (a
      // source that can switch sensors off keeps the barometer off for it).
      let subscription = source.subscribe(
        requestedSampleRate: source.supportedSampleRates.upperBound, sensors: Self.sensorsRead
      ) { [weak self] event in self?.handle(event, connection: connection) }
      let stillWanted = state.withLock { s -> Bool in
        // Everybody may have left while the subscription was being made, or the source may have
        // finished meanwhile (and someone connected again).
        guard s.isConnected, s.connection == connection, !consumers.isEmpty, s.subscription == nil
        else { return false }
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

  /// Handles an event of the source subscription made for `connection`.
  private func handle(_ event: SourceEvent, connection: UInt64) {
    let outgoing: Event
    switch event {
    case .sample(let sample):
      guard let estimate = state.withLock({ $0.feed.update(with: sample) }) else { return }
      outgoing = .estimate(estimate)
    case .failure(let failure):
      outgoing = .failure(failure)
    case .finished:
      // The source has dropped this subscription (a player at the end of its stream), while
      // handler consumers stay: disconnect, so that the next consumer subscribes again and hears
      // the end from the source (or a live source starts again) instead of waiting for ever.
      let finished = state.withLock { s -> SourceSubscription? in
        guard s.isConnected, s.connection == connection else { return nil }
        s.isConnected = false
        defer { s.subscription = nil }
        return s.subscription
      }
      // Outside the lock, like `unsubscribe` (the source has dropped it already: no effect).
      finished?.cancel()
      outgoing = .finished
    }
    consumers.deliver(outgoing)
  }
}
