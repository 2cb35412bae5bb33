// SPDX-License-Identifier: Apache-2.0

import Foundation

// Addition; not part of Apple's Core Motion.
//
// Async sequences over the same updates as the handler API, built on the same internal channels
// and the same shared producers, so that both behave alike (pacing by the `…UpdateInterval` in
// force when the sequence is created, conversions, reference frames).
//
// Each call makes an independent subscription: it does not touch `is…Active` or the pull
// properties, and several sequences may run side by side with the handler API. The sequence ends
// when the source has no more samples (end of a recording), throws the `NSError` (`CMErrorDomain`)
// a handler would have received, and throws `CMErrorNotAvailable` at once when the sensor is
// missing. When the consumer stops iterating (the task is cancelled or the loop is left), the
// subscription is cancelled.
extension CMMotionManager {
  /// Accelerometer samples, every ``accelerometerUpdateInterval`` seconds. An addition.
  public func accelerometerUpdates() -> AsyncThrowingStream<CMAccelerometerData, any Error> {
    makeStream(UpdateChannel(interval: accelerometerUpdateInterval), sensorName: "accelerometer") {
      self.connectAccelerometer($0, sink: $1)
    }
  }

  /// Raw gyroscope samples, every ``gyroUpdateInterval`` seconds. An addition.
  public func gyroUpdates() -> AsyncThrowingStream<CMGyroData, any Error> {
    makeStream(UpdateChannel(interval: gyroUpdateInterval), sensorName: "gyroscope") {
      self.connectGyro($0, sink: $1)
    }
  }

  /// Raw magnetometer samples, every ``magnetometerUpdateInterval`` seconds. An addition.
  public func magnetometerUpdates() -> AsyncThrowingStream<CMMagnetometerData, any Error> {
    makeStream(UpdateChannel(interval: magnetometerUpdateInterval), sensorName: "magnetometer") {
      self.connectMagnetometer($0, sink: $1)
    }
  }

  /// Device-motion samples in `referenceFrame`, every ``deviceMotionUpdateInterval`` seconds. An
  /// addition. An unavailable frame throws the error the handler API would deliver.
  public func deviceMotionUpdates(
    using referenceFrame: CMAttitudeReferenceFrame = .xArbitraryZVertical
  ) -> AsyncThrowingStream<CMDeviceMotion, any Error> {
    makeStream(UpdateChannel(interval: deviceMotionUpdateInterval), sensorName: "device motion") {
      self.connectDeviceMotion($0, frame: referenceFrame, sink: $1)
    }
  }

  private func makeStream<Item: AnyObject>(
    _ channel: UpdateChannel<Item>, sensorName: String,
    connect: (UpdateChannel<Item>, UpdateChannel<Item>.Sink) -> Bool
  ) -> AsyncThrowingStream<Item, any Error> {
    // Unbounded: the source must never block, and the consumer decides the pace by the interval.
    let (stream, continuation) = AsyncThrowingStream<Item, any Error>.makeStream()
    let sink = UpdateChannel<Item>.Sink.stream(
      yield: { continuation.yield($0) },
      finish: { continuation.finish(throwing: $0) })
    continuation.onTermination = { _ in channel.end() }
    if !connect(channel, sink) {
      continuation.finish(
        throwing: NSError(CMErrorNotAvailable, description: "\(source.name) has no \(sensorName)"))
    }
    return stream
  }
}
