// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import PhoneStreams

/// A failed start of a phone source's worker (a port in use, say) used to be told only to the
/// subscribers present then: the hub counted itself running, so a later subscriber (while the
/// in-process motion history kept the first one) got no start attempt, no failure and no events,
/// for ever.
final class LiveSourceHubStartFailureTests: XCTestCase {
  private struct PortInUse: Error {}

  func testEachLaterSubscriberTriesTheFailedStartAgainAndHearsOfItsFailure() {
    // Fails twice, then starts (nil: a worker that has nothing to run in this test).
    let attempts = Locked(0)
    let hub = LiveSourceHub(name: "test", failureLabel: "test source") {
      let attempt = attempts.withLock { count -> Int in
        count += 1
        return count
      }
      if attempt <= 2 { throw PortInUse() }
      return nil
    }
    let failures = Locked<[String: Int]>([:])
    let subscriber = { (name: String) in
      hub.subscribe { event in
        if case .failure = event { failures.withLock { $0[name, default: 0] += 1 } }
      }
    }

    let first = subscriber("first")
    hub.waitUntilDelivered()
    XCTAssertEqual(attempts.withLock { $0 }, 1)
    XCTAssertEqual(failures.withLock { $0 }, ["first": 1])

    let second = subscriber("second")
    hub.waitUntilDelivered()
    XCTAssertEqual(attempts.withLock { $0 }, 2, "the second subscriber tries again")
    XCTAssertEqual(
      failures.withLock { $0 }, ["first": 1, "second": 1],
      "the retry's failure goes to the new subscriber only")

    let third = subscriber("third")
    hub.waitUntilDelivered()
    XCTAssertEqual(attempts.withLock { $0 }, 3, "the third tries again, and the start succeeds")
    let fourth = subscriber("fourth")
    hub.waitUntilDelivered()
    XCTAssertEqual(attempts.withLock { $0 }, 3, "no retry once the worker runs")
    XCTAssertEqual(failures.withLock { $0 }, ["first": 1, "second": 1])

    for subscription in [first, second, third, fourth] { subscription.cancel() }
  }
}
