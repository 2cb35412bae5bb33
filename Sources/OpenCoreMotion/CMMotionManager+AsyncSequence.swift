// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

// Addition; not part of Apple's Core Motion.
//
// Async sequences over the same updates as the handler API, built on the same internal channels
// and the same shared producers, so that both behave alike (pacing by the `…UpdateInterval` in
// force when the sequence is created, conversions, reference frames).
//
// Each call makes an independent subscription: it does not touch `is…Active` or the pull
// properties, and several sequences may run side by side with the handler API. The sequence ends
// when the source has no more samples (end of a recording), when the source fails, at once when
// the sensor or reference frame is not available, or when the source finds its sensor missing (a
// phone stream without a gyroscope); the sequence's `error` then tells why (the
// `NSError` in `CMErrorDomain` a handler would have received). Iteration never throws, so both
// `for await` and `for try await` work. When the consumer stops iterating (the task is cancelled or
// the sequence is dropped), the subscription is cancelled soon after, on a background queue: the
// cancellation waits for a delivery in progress, which must not happen on the cancelled task's own
// termination path (see StreamTermination).
extension CMMotionManager {
  /// Accelerometer samples, every ``accelerometerUpdateInterval`` seconds. An addition.
  public func accelerometerUpdates() -> MotionUpdateSequence<CMAccelerometerData> {
    makeStream(UpdateChannel(interval: accelerometerUpdateInterval), sensorName: "accelerometer") {
      self.connectAccelerometer($0, sink: $1)
    }
  }

  /// Raw gyroscope samples, every ``gyroUpdateInterval`` seconds. An addition.
  public func gyroUpdates() -> MotionUpdateSequence<CMGyroData> {
    makeStream(UpdateChannel(interval: gyroUpdateInterval), sensorName: "gyroscope") {
      self.connectGyro($0, sink: $1)
    }
  }

  /// Raw magnetometer samples, every ``magnetometerUpdateInterval`` seconds. An addition.
  public func magnetometerUpdates() -> MotionUpdateSequence<CMMagnetometerData> {
    makeStream(UpdateChannel(interval: magnetometerUpdateInterval), sensorName: "magnetometer") {
      self.connectMagnetometer($0, sink: $1)
    }
  }

  /// Device-motion samples in `referenceFrame`, every ``deviceMotionUpdateInterval`` seconds. An
  /// addition. An unavailable frame ends the sequence at once with the error the handler API would
  /// deliver.
  public func deviceMotionUpdates(
    using referenceFrame: CMAttitudeReferenceFrame = .xArbitraryZVertical
  ) -> MotionUpdateSequence<CMDeviceMotion> {
    makeStream(UpdateChannel(interval: deviceMotionUpdateInterval), sensorName: "device motion") {
      self.connectDeviceMotion($0, frame: referenceFrame, sink: $1)
    }
  }

  private func makeStream<Item: AnyObject>(
    _ channel: UpdateChannel<Item>, sensorName: String,
    connect: (UpdateChannel<Item>, UpdateChannel<Item>.Sink) -> Bool
  ) -> MotionUpdateSequence<Item> {
    channel.makeSequence { sink in
      connect(channel, sink)
        ? nil : NSError(CMErrorNotAvailable, description: "\(source.name) has no \(sensorName)")
    }
  }
}

/// Motion updates as an async sequence; an addition to Apple's API.
///
/// Iteration never throws: the sequence simply ends. Afterwards ``error`` says whether it ended
/// because of a problem (source failure, sensor or reference frame not available) rather than the
/// end of the source's data.
///
/// One consumer: each update is handed out once (the sequence is an `AsyncStream`), so a second
/// iteration only gets what the first left, and two iterating at once share the updates, each
/// update going to one of them. For another consumer, call the `…Updates()` method again: each
/// call is a subscription of its own.
public struct MotionUpdateSequence<Element>: AsyncSequence, Sendable {
  private let stream: AsyncStream<ImmutableItem<Element>>
  private let failure: Locked<(any Error)?>
  private let dropped: Locked<Int>

  /// How many updates wait for a consumer that falls behind (at 100 Hz, 10 s); beyond that the
  /// oldest are dropped and counted in ``droppedCount``.
  public static var maximumBufferedUpdates: Int { 1000 }

  init(
    stream: AsyncStream<ImmutableItem<Element>>, failure: Locked<(any Error)?>, dropped: Locked<Int>
  ) {
    self.stream = stream
    self.failure = failure
    self.dropped = dropped
  }

  /// Updates dropped so far because the consumer fell more than ``maximumBufferedUpdates`` behind.
  public var droppedCount: Int { dropped.withLock { $0 } }

  /// Why the sequence ended early (an `NSError` in `CMErrorDomain`), or `nil` while it runs and
  /// when the source simply ran out of samples.
  public var error: (any Error)? { failure.withLock { $0 } }

  public func makeAsyncIterator() -> Iterator {
    Iterator(base: stream.makeAsyncIterator())
  }

  /// Iterates the updates in order.
  public struct Iterator: AsyncIteratorProtocol {
    var base: AsyncStream<ImmutableItem<Element>>.Iterator

    public mutating func next() async -> Element? {
      await base.next()?.value
    }
  }
}

/// A Core Motion data object on its way from the source's thread to an async-sequence consumer.
///
/// `@unchecked Sendable`: the data objects are `open` `NSObject` subclasses that Apple's API does
/// not declare `Sendable`, but ours are immutable after `init` (`let` storage;
/// `CMDeviceMotion.attitude` hands out a copy), so sharing one between threads is safe.
struct ImmutableItem<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
