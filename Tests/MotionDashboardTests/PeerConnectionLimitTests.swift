// SPDX-License-Identifier: Apache-2.0

import MotionConcurrency
import MotionServerSupport
import XCTest

/// The per-peer connection cap shared by the dashboard and the Sensor Logger receiver, without a
/// server: slots per address, their release, and when a refusal is reported.
final class PeerConnectionLimitTests: XCTestCase {
  func testEachAddressGetsItsOwnSlotsAndReleasingOneAdmitsTheNext() {
    let limit = PeerConnectionLimit(limit: 2) { _ in }
    XCTAssertTrue(limit.admit("10.0.0.1"))
    XCTAssertTrue(limit.admit("10.0.0.1"))
    XCTAssertFalse(limit.admit("10.0.0.1"))
    XCTAssertTrue(limit.admit("10.0.0.2"), "another address is not held back")
    XCTAssertEqual(limit.peerCount, 2)
    limit.release("10.0.0.1")
    XCTAssertTrue(limit.admit("10.0.0.1"))
    limit.release("10.0.0.1")
    limit.release("10.0.0.1")
    limit.release("10.0.0.2")
    XCTAssertEqual(limit.peerCount, 0, "an address without connections is forgotten")
    // A release of an address that holds nothing changes nothing.
    limit.release("10.0.0.3")
    XCTAssertEqual(limit.peerCount, 0)
    XCTAssertEqual(limit.refusedCount, 1)
  }

  func testRefusalsAreReportedTheFirstTimeAndAtEachPowerOfTen() {
    let reported = Locked<[Int]>([])
    let limit = PeerConnectionLimit(limit: 1) { total in reported.withLock { $0.append(total) } }
    XCTAssertTrue(limit.admit("peer"))
    for _ in 0..<1_000 { XCTAssertFalse(limit.admit("peer")) }
    XCTAssertEqual(reported.withLock { $0 }, [1, 10, 100, 1_000])
    XCTAssertEqual(limit.refusedCount, 1_000)
  }

  func testALimitBelowOneStillAdmitsOneConnection() {
    let limit = PeerConnectionLimit(limit: -5) { _ in }
    XCTAssertEqual(limit.limit, 1)
    XCTAssertTrue(limit.admit("peer"))
    XCTAssertFalse(limit.admit("peer"))
  }
}
