// SPDX-License-Identifier: Apache-2.0

import Foundation

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
/// `@unchecked Sendable`: the detector, handler and continuations are only touched with `lock`
/// held. (It keeps its own continuation list rather than MotionSensors' `SubscriberFanOut`:
/// MotionRecognition depends on MotionMath only.)
public final class MotionEventRecognizer<Detector: MotionEventDetector>: @unchecked Sendable {
  // All mutable state is guarded by `lock`; the handler runs outside the lock so it may call back.
  private let lock = NSLock()
  private var detector: Detector
  private var handler: (@Sendable (Detector.Event) -> Void)?
  private var continuations: [UUID: AsyncStream<Detector.Event>.Continuation] = [:]

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
    let streams = Array(continuations.values)
    lock.unlock()
    guard let event else { return nil }
    handler?(event)
    for continuation in streams { continuation.yield(event) }
    return event
  }

  /// A new stream of the events found from now on; it ends when ``finish()`` is called.
  public func events(
    bufferingPolicy: AsyncStream<Detector.Event>.Continuation.BufferingPolicy = .unbounded
  ) -> AsyncStream<Detector.Event> {
    let (stream, continuation) = AsyncStream<Detector.Event>.makeStream(bufferingPolicy: bufferingPolicy)
    let id = UUID()
    lock.lock()
    continuations[id] = continuation
    lock.unlock()
    continuation.onTermination = { [weak self] _ in
      guard let self else { return }
      self.lock.lock()
      self.continuations[id] = nil
      self.lock.unlock()
    }
    return stream
  }

  /// Ends every stream handed out by ``events(bufferingPolicy:)``.
  public func finish() {
    lock.lock()
    let streams = Array(continuations.values)
    continuations.removeAll()
    lock.unlock()
    for continuation in streams { continuation.finish() }
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
