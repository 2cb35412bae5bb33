// SPDX-License-Identifier: Apache-2.0

/// The events a ``MotionEventDetector`` finds in an asynchronous sequence of ``MotionInput``
/// readings, itself an `AsyncSequence`.
///
/// Create one with `inputs.motionEvents(detectedBy:)`. Each iterator runs its own copy of the
/// detector, so over readings that can be read again (an array's, a file's) iterating twice gives
/// the same events. Over readings that are used up as they are read, such as the `AsyncStream` of
/// `CMMotionManager.motionEvents(detectedBy:)`, it does not: a second iteration only sees what the
/// first left, and two at once trap (`AsyncStream` allows one waiting iterator). Such a sequence
/// has one consumer; make another (call `motionEvents(detectedBy:)` again) for a second.
public struct MotionEventSequence<Base: AsyncSequence, Detector: MotionEventDetector>: AsyncSequence
where Base.Element == MotionInput {
  public typealias Element = Detector.Event

  private let base: Base
  private let detector: Detector

  init(base: Base, detector: Detector) {
    self.base = base
    self.detector = detector
  }

  /// Iterates the events; ends when the base sequence ends.
  public struct AsyncIterator: AsyncIteratorProtocol {
    private var baseIterator: Base.AsyncIterator
    private var detector: Detector

    init(baseIterator: Base.AsyncIterator, detector: Detector) {
      self.baseIterator = baseIterator
      self.detector = detector
    }

    /// Reads inputs until one completes an event; `nil` at the end of the inputs.
    public mutating func next() async throws -> Detector.Event? {
      while let input = try await baseIterator.next() {
        if let event = detector.update(input) { return event }
      }
      return nil
    }
  }

  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(baseIterator: base.makeAsyncIterator(), detector: detector)
  }
}

extension AsyncSequence where Element == MotionInput {
  /// The events `detector` finds in these readings, as an async sequence.
  public func motionEvents<Detector: MotionEventDetector>(
    detectedBy detector: Detector
  ) -> MotionEventSequence<Self, Detector> {
    MotionEventSequence(base: self, detector: detector)
  }
}

extension MotionEventSequence: Sendable where Base: Sendable {}
