// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionRecognition

final class EventDeliveryTests: XCTestCase {
  private func knockInputs(seed: UInt64) -> [MotionInput] {
    var motion = SyntheticMotion(seed: seed)
    return motion.samples(
      duration: 2.5,
      user: { t in
        [0.5, 1.5].reduce(.zero) {
          $0 - lobe(t, start: $1 - 0.01, width: 0.02, amplitude: 2) * SIMD3(1, 0, 0)
        }
      })
  }

  func testRateLimiter() {
    var limiter = RateLimiter(minimumInterval: 1)
    let allowed = [0.0, 0.5, 0.99, 1.0, 1.2, 2.5].filter { limiter.allow(at: $0) }
    XCTAssertEqual(allowed, [0.0, 1.0, 2.5])
  }

  func testAsyncSequenceOfEvents() async throws {
    let inputs = knockInputs(seed: testSeed())
    let stream = AsyncStream<MotionInput> { continuation in
      for input in inputs { continuation.yield(input) }
      continuation.finish()
    }
    var taps: [TapDetector.Event] = []
    for try await tap in stream.motionEvents(detectedBy: TapDetector()) { taps.append(tap) }
    XCTAssertEqual(taps.map(\.struckSide), [.left, .left])
  }

  func testRecognizerHandlerAndStream() async {
    let inputs = knockInputs(seed: testSeed())
    let counter = Counter()
    let recognizer = MotionEventRecognizer(TapDetector()) { _ in counter.increment() }
    let events = recognizer.events()
    for input in inputs { recognizer.process(input) }
    recognizer.finish()
    var received = 0
    for await _ in events { received += 1 }
    XCTAssertEqual(received, 2)
    XCTAssertEqual(counter.value, 2)
  }
}

/// A thread-safe counter for handler tests.
private final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func increment() {
    lock.lock()
    count += 1
    lock.unlock()
  }
  var value: Int {
    lock.lock()
    defer { lock.unlock() }
    return count
  }
}
