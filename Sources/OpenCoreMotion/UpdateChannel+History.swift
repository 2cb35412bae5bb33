// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

// The pedometer, activity and altimeter services reuse ``UpdateChannel`` for its stop guarantee
// (no handler runs after a stop returns) and its three sinks (queue, pull, async sequence). Their
// pacing is their own, so they start channels with interval 0 (every offered item is delivered).
extension UpdateChannel {
  /// Begins a run fed by `backend`'s live events: `route` turns each event into deliveries on
  /// this channel for run `generation`. Returns the generation. With `holdingFinish`, the end of
  /// the source waits for ``releaseFinish(generation:)``, which the caller calls once it has
  /// offered the run's opening update.
  @discardableResult
  func connect(
    to backend: any MotionHistoryBackend, sink: Sink, holdingFinish: Bool = false,
    route: @escaping @Sendable (MotionHistoryEvent, UInt64) -> Void
  ) -> UInt64 {
    let generation = begin(sink: sink, nominalSourcePeriod: 0.01)
    if holdingFinish { holdFinish(generation: generation) }
    let subscription = backend.subscribe { event in route(event, generation) }
    attach(subscription, generation: generation)
    return generation
  }

  /// Begins a run that only reports `error` (a service that is not available or not authorized).
  func refuse(_ error: any Error, sink: Sink) {
    let generation = begin(sink: sink, nominalSourcePeriod: 0.01)
    fail(error, generation: generation)
  }

  /// Delivers `item` to run `generation` at once, whatever the interval.
  func deliver(_ item: Item, timestamp: Double, generation: UInt64) {
    offer(timestamp: timestamp, generation: generation) { item }
  }

  /// Delivers `item` as run `generation`'s opening update unless a live one went out first (see
  /// ``offer(timestamp:generation:opening:make:)``).
  func deliverOpening(_ item: Item, generation: UInt64) {
    deliverOpening(generation: generation) { item }
  }

  /// As ``deliverOpening(_:generation:)``, with the item made by `make` under the channel's lock
  /// once the opening is decided (a service that notes what its opening gave).
  func deliverOpening(generation: UInt64, make: () -> Item?) {
    offer(timestamp: -.infinity, generation: generation, opening: true, make: make)
  }
}

/// Builds an async sequence over a channel that `connect` starts; errors the channel reports end
/// the sequence and are kept as its ``MotionUpdateSequence/error``.
func makeUpdateSequence<Item: AnyObject>(
  _ connect: (UpdateChannel<Item>, UpdateChannel<Item>.Sink) -> Void
) -> MotionUpdateSequence<Item> {
  // Interval 0: these services pace themselves (a few items per second at most).
  let channel = UpdateChannel<Item>(interval: 0)
  return channel.makeSequence { sink in
    connect(channel, sink)
    return nil
  }
}

/// The error of a motion-and-fitness service that cannot serve: not authorized, or (when
/// `isAvailable` is false) not available, with `service` named in the description.
func motionServiceError(
  isAvailable: Bool, service: String, backend: any MotionHistoryBackend
) -> NSError? {
  let status = CMAuthorizationStatus.status(for: backend)
  if status != .authorized {
    return NSError(
      CMErrorMotionActivityNotAuthorized,
      description: "\(service) is not authorized: \(status.refusalReason)")
  }
  if !isAvailable {
    return NSError(
      CMErrorMotionActivityNotAvailable,
      description: "\(service) is not available: \(backend.name) lacks the sensor it needs")
  }
  return nil
}
