// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionRecognition

// Addition; not part of Apple's Core Motion.
//
// Gesture recognisers (shake, knock, sharp moves, turning over, free fall, orientation) fed from a
// manager's own update streams. They use the async update sequences, which are independent
// subscriptions, so they never take over the manager's handler-based updates or `is…Active`.
extension CMMotionManager {
  /// The recogniser inputs of this manager: device-motion updates when the source has a
  /// gyroscope (gravity and user acceleration separated by fusion), otherwise accelerometer
  /// updates. Ends when the source ends. Like the update sequences it reads, it keeps the newest
  /// ``MotionUpdateSequence/maximumBufferedUpdates`` inputs for a consumer that falls behind.
  public func motionInputs() -> AsyncStream<MotionInput> {
    // The update sequences are made here, before the task runs, so that the task captures only
    // them (sendable) and not the manager, and the subscription starts at once.
    let deviceMotion = isDeviceMotionAvailable ? deviceMotionUpdates() : nil
    let accelerometer =
      deviceMotion == nil && isAccelerometerAvailable ? accelerometerUpdates() : nil
    // Bounded as the update sequences are: the task below reads them as fast as they come, so
    // without a bound of its own a slow consumer would only move the backlog here, unbounded.
    return AsyncStream(
      bufferingPolicy: .bufferingNewest(MotionUpdateSequence<MotionInput>.maximumBufferedUpdates)
    ) { continuation in
      let task = Task {
        if let deviceMotion {
          for await motion in deviceMotion { continuation.yield(MotionInput(motion)) }
        } else if let accelerometer {
          for await data in accelerometer { continuation.yield(MotionInput(data)) }
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// The events `detector` finds in this manager's updates (see ``motionInputs()``), as an async
  /// sequence: `for try await shake in manager.motionEvents(detectedBy: ShakeDetector()) { … }`.
  public func motionEvents<Detector: MotionEventDetector>(
    detectedBy detector: Detector
  ) -> MotionEventSequence<AsyncStream<MotionInput>, Detector> {
    motionInputs().motionEvents(detectedBy: detector)
  }

  /// Runs `detector` on this manager's updates and calls `handler` on `queue` for each event,
  /// until the returned subscription is cancelled or the source ends.
  @discardableResult
  public func startMotionEventUpdates<Detector: MotionEventDetector>(
    detectedBy detector: Detector, to queue: OperationQueue,
    withHandler handler: @escaping (Detector.Event) -> Void
  ) -> MotionEventSubscription {
    let subscription = MotionEventSubscription()
    let events = motionEvents(detectedBy: detector)
    let box = UncheckedHandler(handler)
    subscription.attach(
      Task {
        do {
          for try await event in events {
            queue.addOperation {
              guard !subscription.isCancelled else { return }
              box.handler(event)
            }
          }
        } catch {}
      })
    return subscription
  }
}

/// Carries a non-Sendable handler into the operation queue, where it runs serially as the
/// handler API's closures do. `@unchecked Sendable`: the handler is Apple's non-`@Sendable` closure
/// type; only the operations on the caller's `queue` call it, so it runs where the caller asked.
private struct UncheckedHandler<Event>: @unchecked Sendable {
  let handler: (Event) -> Void
  init(_ handler: @escaping (Event) -> Void) { self.handler = handler }
}
