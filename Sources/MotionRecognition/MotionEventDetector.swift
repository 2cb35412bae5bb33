// SPDX-License-Identifier: Apache-2.0

/// A recogniser that turns a stream of ``MotionInput`` readings into discrete events.
///
/// Detectors are value types fed one reading at a time; each call returns the event that reading
/// completed, if any. Wrap one in a ``MotionEventRecognizer`` for a handler closure or an
/// `AsyncStream`, or apply it to an async sequence of inputs with
/// `inputs.motionEvents(detectedBy:)`.
public protocol MotionEventDetector: Sendable {
  /// The event type, a plain value that can cross concurrency domains.
  associatedtype Event: Sendable

  /// Processes one reading and returns the event it completes, if any.
  mutating func update(_ input: MotionInput) -> Event?

  /// Forgets all evolving state (parameters are kept).
  mutating func reset()
}

extension Sequence where Element == MotionInput {
  /// Runs a copy of `detector` over these readings and returns every event in order.
  public func motionEvents<Detector: MotionEventDetector>(
    detectedBy detector: Detector
  ) -> [Detector.Event] {
    var detector = detector
    var events: [Detector.Event] = []
    for input in self {
      if let event = detector.update(input) { events.append(event) }
    }
    return events
  }
}
