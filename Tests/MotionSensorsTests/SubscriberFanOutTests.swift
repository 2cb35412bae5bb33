// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// The one fan-out every source and consumer uses: order, removal during delivery, and no call
/// after `remove` returns.
final class SubscriberFanOutTests: XCTestCase {
  func testDeliversInSubscriptionOrder() {
    let fanOut = SubscriberFanOut<Int>()
    let log = Locked<[String]>([])
    for name in ["a", "b", "c", "d", "e"] {
      fanOut.add { event in log.withLock { $0.append("\(event)\(name)") } }
    }
    fanOut.deliver([1, 2])
    XCTAssertEqual(
      log.withLock { $0 }, ["1a", "1b", "1c", "1d", "1e", "2a", "2b", "2c", "2d", "2e"],
      "every subscriber sees an event before anyone sees the next, in subscription order")
  }

  func testHandlerMayRemoveItselfAndOthersWhileDelivering() {
    let fanOut = SubscriberFanOut<Int>()
    let log = Locked<[String]>([])
    let ids = Locked<[String: UInt64]>([:])
    let a = fanOut.add { event in
      log.withLock { $0.append("\(event)a") }
      // On the first event: remove b (not yet called for it) and itself.
      if event == 1, let b = ids.withLock({ $0["b"] }), let a = ids.withLock({ $0["a"] }) {
        fanOut.remove(b)
        fanOut.remove(a)
      }
    }
    let b = fanOut.add { event in log.withLock { $0.append("\(event)b") } }
    fanOut.add { event in log.withLock { $0.append("\(event)c") } }
    ids.withLock { $0 = ["a": a, "b": b] }
    fanOut.deliver([1, 2])
    XCTAssertEqual(log.withLock { $0 }, ["1a", "1c", "2c"])
    XCTAssertEqual(fanOut.count, 1)
  }

  func testRemoveFromAnotherThreadWaitsForTheRunningHandler() {
    let fanOut = SubscriberFanOut<Int>()
    let log = Locked<[String]>([])
    let entered = DispatchSemaphore(value: 0)
    let removerStarted = DispatchSemaphore(value: 0)
    let id = fanOut.add { event in
      guard event == 1 else {
        log.withLock { $0.append("called after remove") }
        return
      }
      entered.signal()
      // Bounded waits: a broken fan-out fails the assertions below instead of hanging.
      _ = removerStarted.wait(timeout: .now() + 10)
      // Give the remover time to reach `remove`: if it did not wait for this handler, it would log
      // "removed" during this pause, before "handler end".
      Thread.sleep(forTimeInterval: 0.05)
      log.withLock { $0.append("handler end") }
    }
    let delivered = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      fanOut.deliver(1)
      delivered.signal()
    }
    XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "the handler never ran")
    let removed = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      removerStarted.signal()
      fanOut.remove(id)
      log.withLock { $0.append("removed") }
      fanOut.deliver(2)
      removed.signal()
    }
    XCTAssertEqual(removed.wait(timeout: .now() + 10), .success, "remove never returned")
    XCTAssertEqual(delivered.wait(timeout: .now() + 10), .success, "delivery never returned")
    XCTAssertEqual(log.withLock { $0 }, ["handler end", "removed"])
  }

  func testNoCallAfterRemoveAndRemoveAllReturnsInOrder() {
    let fanOut = SubscriberFanOut<Int>()
    let count = Locked(0)
    let id = fanOut.add { _ in count.withLock { $0 += 1 } }
    fanOut.deliver(1)
    XCTAssertTrue(fanOut.remove(id), "empty after removing the only subscriber")
    fanOut.remove(id)  // twice is harmless
    fanOut.deliver(2)
    XCTAssertEqual(count.withLock { $0 }, 1)

    let log = Locked<[String]>([])
    fanOut.add { _ in log.withLock { $0.append("x") } }
    fanOut.add { _ in log.withLock { $0.append("y") } }
    for handler in fanOut.removeAll() { handler(0) }
    fanOut.deliver(3)
    XCTAssertEqual(log.withLock { $0 }, ["x", "y"])
    XCTAssertTrue(fanOut.isEmpty)
  }
}
