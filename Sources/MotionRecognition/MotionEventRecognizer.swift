// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency

/// A thread-safe box around a ``MotionEventDetector`` that delivers its events to a handler
/// closure and to any number of `AsyncStream`s.
///
/// This is the shape to use inside a Core Motion update handler:
///
///     let shakes = MotionEventRecognizer(ShakeDetector()) { event in print(event) }
///     manager.startDeviceMotionUpdates(to: .main) { motion, _ in
///       guard let motion else { return }
///       shakes.process(MotionInput(timestamp: motion.timestamp, ...))
///     }
///     for await event in shakes.events() { ... }
///
/// `@unchecked Sendable`: the detector and handler are only touched with `lock` held; the streams
/// are subscribers of a `SubscriberFanOut` (thread-safe itself), so a stream cancelled on another
/// thread is not yielded to once its termination has been handled.
public final class MotionEventRecognizer<Detector: MotionEventDetector>: @unchecked Sendable {
  /// What the streams' fan-out carries: an event, or the end of every stream (``finish()``).
  private enum StreamMessage: Sendable {
    case event(Detector.Event)
    case finish
  }

  // The detector and handler are guarded by `lock`; the handler runs outside it so it may call
  // back.
  private let lock = NSLock()
  private var detector: Detector
  private var handler: (@Sendable (Detector.Event) -> Void)?
  /// The streams handed out by ``events(bufferingPolicy:)``, in the order they were asked for.
  private let streams = SubscriberFanOut<StreamMessage>()

  /// Creates a recogniser around `detector`, with an optional handler called for each event on the
  /// thread that called ``process(_:)``.
  public init(_ detector: Detector, handler: (@Sendable (Detector.Event) -> Void)? = nil) {
    self.detector = detector
    self.handler = handler
  }

  /// Replaces the handler (pass `nil` to remove it).
  public func setHandler(_ handler: (@Sendable (Detector.Event) -> Void)?) {
    lock.lock()
    self.handler = handler
    lock.unlock()
  }

  /// Feeds one reading; returns the event it completed, after delivering it.
  @discardableResult
  public func process(_ input: MotionInput) -> Detector.Event? {
    lock.lock()
    let event = detector.update(input)
    let handler = self.handler
    lock.unlock()
    guard let event else { return nil }
    handler?(event)
    streams.deliver(.event(event))
    return event
  }

  /// A new stream of the events found from now on; it ends when ``finish()`` is called.
  public func events(
    bufferingPolicy: AsyncStream<Detector.Event>.Continuation.BufferingPolicy = .unbounded
  ) -> AsyncStream<Detector.Event> {
    let (stream, continuation) = AsyncStream<Detector.Event>.makeStream(
      bufferingPolicy: bufferingPolicy)
    let id = streams.add { message in
      switch message {
      case .event(let event): continuation.yield(event)
      case .finish: continuation.finish()
      }
    }
    continuation.onTermination = { [weak self] _ in
      // Already removed when ``finish()`` ended it; removing twice is harmless. Off this thread:
      // removal waits for a delivery in progress, which may be resuming the cancelled task.
      guard let self else { return }
      StreamTermination.run { self.streams.remove(id) }
    }
    return stream
  }

  /// Ends every stream handed out by ``events(bufferingPolicy:)``.
  public func finish() {
    for end in streams.removeAll() { end(.finish) }
  }

  /// Resets the detector's state.
  public func reset() {
    lock.lock()
    detector.reset()
    lock.unlock()
  }

  /// A copy of the detector as it is now (for reading its state).
  public var currentDetector: Detector {
    lock.lock()
    defer { lock.unlock() }
    return detector
  }
}
