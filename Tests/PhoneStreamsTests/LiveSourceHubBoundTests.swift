// SPDX-License-Identifier: Apache-2.0

import Dispatch
import Foundation
import MotionSensors
import XCTest

@testable import PhoneStreams

/// The phone sources' delivery queue (``LiveSourceHub``) waits for subscribers, so what a slow one
/// makes it hold must be bounded: before, every batch from the network became one more block on
/// the delivery queue, and a subscriber that stalled made the process grow without limit.
final class LiveSourceHubBoundTests: XCTestCase {
  private func sample(_ index: Int) -> SourceEvent {
    .sample(MotionSample(timestamp: Double(index), gyroscope: SIMD3(Double(index), 0, 0)))
  }

  /// A subscriber blocks in its first event while 1 000 more arrive: at most
  /// `maximumPendingEvents` (100) wait, the oldest are dropped and counted, and once it goes on
  /// it gets one advisory notice of the drops (the latest power of ten reached, 100) and the
  /// newest events in order.
  func testASlowSubscriberMakesTheHubDropTheOldestEventsInsteadOfGrowing() {
    let hub = LiveSourceHub(
      name: "test", failureLabel: "test source", maximumPendingEvents: 100, startWorker: { nil })
    let gate = DispatchSemaphore(value: 0)
    let received = Locked<[SourceEvent]>([])
    let subscription = hub.subscribe { event in
      let count = received.withLock { events -> Int in
        events.append(event)
        return events.count
      }
      if count == 1 { gate.wait() }
    }
    defer { subscription.cancel() }
    hub.deliver(sample(0))
    let deadline = Date(timeIntervalSinceNow: 5)
    while received.withLock({ $0.isEmpty }) && deadline.timeIntervalSinceNow > 0 {
      Thread.sleep(forTimeInterval: 0.001)
    }
    XCTAssertEqual(received.withLock { $0.count }, 1, "the subscriber is blocked in event 0")
    for index in 1...1_000 { hub.deliver(sample(index)) }
    XCTAssertEqual(hub.pendingEventCount, 100)
    XCTAssertGreaterThanOrEqual(hub.droppedEventCount, 900)
    gate.signal()
    hub.waitUntilDelivered()

    let events = received.withLock { $0 }
    XCTAssertEqual(events.count, 102, "event 0, the notice, the newest 100")
    let times = events.compactMap { event -> Double? in
      if case .sample(let sample) = event { return sample.timestamp } else { return nil }
    }
    XCTAssertEqual(times.first, 0)
    XCTAssertEqual(times.last, 1_000, "the newest event is kept")
    XCTAssertEqual(times, times.sorted())
    let notices = events.compactMap { event -> SourceFailure? in
      if case .failure(let failure) = event { return failure } else { return nil }
    }
    XCTAssertEqual(notices.count, 1)
    XCTAssertEqual(notices.first?.isFatal, false)
    XCTAssertTrue(
      notices.first?.message.contains("100 event(s) so far were dropped") ?? false, "\(notices)")
    XCTAssertEqual(hub.pendingEventCount, 0)

    // Once it keeps up again, nothing more is dropped.
    let dropped = hub.droppedEventCount
    for index in 1_001...1_050 { hub.deliver(sample(index)) }
    hub.waitUntilDelivered()
    XCTAssertEqual(hub.droppedEventCount, dropped)
    XCTAssertEqual(received.withLock { $0.count }, 152)
  }
}
