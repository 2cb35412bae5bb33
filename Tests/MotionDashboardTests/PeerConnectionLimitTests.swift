// SPDX-License-Identifier: Apache-2.0

import MotionConcurrency
import MotionServerSupport
import NIOCore
import XCTest

/// The per-peer connection cap shared by the dashboard and the Sensor Logger receiver, without a
/// server: slots per address, their release, and when a refusal is reported.
final class PeerConnectionLimitTests: XCTestCase {
  func testEachAddressGetsItsOwnSlotsAndReleasingOneAdmitsTheNext() throws {
    let limit = PeerConnectionLimit(limit: 2) { _ in }
    let first = try XCTUnwrap(limit.admit("10.0.0.1"))
    let second = try XCTUnwrap(limit.admit("10.0.0.1"))
    XCTAssertNil(limit.admit("10.0.0.1"))
    let other = try XCTUnwrap(limit.admit("10.0.0.2"), "another address is not held back")
    XCTAssertEqual(limit.peerCount, 2)
    limit.release(first)
    let third = try XCTUnwrap(limit.admit("10.0.0.1"))
    limit.release(second)
    limit.release(third)
    limit.release(other)
    XCTAssertEqual(limit.peerCount, 0, "an address without connections is forgotten")
    // A slot given back twice changes nothing.
    limit.release(other)
    XCTAssertEqual(limit.peerCount, 0)
    XCTAssertEqual(limit.refusedCount, 1)
  }

  /// With eviction on, a peer at its limit makes room by closing its oldest connection that has
  /// not proven itself; proven ones stay, and with every one proven a newcomer is refused.
  func testUnprovenConnectionsGiveWayOldestFirst() throws {
    let limit = PeerConnectionLimit(limit: 2, evictsUnprovenConnections: true) { _ in }
    let evicted = Locked<[Int]>([])
    final class Key {}
    let keys = (0..<5).map { _ in Key() }
    func admit(_ index: Int) -> PeerConnectionLimit.Slot? {
      limit.admit(
        "127.0.0.1", key: ObjectIdentifier(keys[index]),
        evict: { evicted.withLock { $0.append(index) } })
    }
    _ = try XCTUnwrap(admit(0))
    _ = try XCTUnwrap(admit(1))
    limit.prove(ObjectIdentifier(keys[1]))
    _ = try XCTUnwrap(admit(2), "the unproven connection 0 gives way")
    XCTAssertEqual(evicted.withLock { $0 }, [0])
    _ = try XCTUnwrap(admit(3), "then 2; the proven 1 stays")
    XCTAssertEqual(evicted.withLock { $0 }, [0, 2])
    limit.prove(ObjectIdentifier(keys[3]))
    XCTAssertNil(admit(4), "every connection proven: refused")
    XCTAssertEqual(limit.evictedCount, 2)
    XCTAssertEqual(limit.refusedCount, 1)
  }

  /// Every connection from this machine is one peer, whatever loopback or own address it uses:
  /// counted by address, a local user got a share for each of 127.0.0.2, 127.0.0.3, … and eight
  /// of them filled the dashboard. Other addresses stay apart, and an IPv4 address mapped into
  /// IPv6 is the IPv4 address.
  func testConnectionsFromThisMachineAreOnePeer() throws {
    func peer(_ remote: String, at local: String = "10.0.0.1") throws -> String {
      PeerConnectionLimit.peer(
        of: try SocketAddress(ipAddress: remote, port: 40_000),
        at: try SocketAddress(ipAddress: local, port: 8_787))
    }
    let local = PeerConnectionLimit.localPeer
    XCTAssertEqual(try peer("127.0.0.1"), local)
    XCTAssertEqual(try peer("127.0.0.5"), local)
    XCTAssertEqual(try peer("127.255.0.9"), local)
    XCTAssertEqual(try peer("::1", at: "::"), local)
    XCTAssertEqual(try peer("::ffff:127.0.0.2", at: "::"), local)
    // Arriving at a loopback address, or from the address it arrives at: from this machine.
    XCTAssertEqual(try peer("192.0.2.2", at: "127.0.0.1"), local)
    XCTAssertEqual(try peer("10.0.0.1", at: "10.0.0.1"), local)
    XCTAssertEqual(try peer("fd00::2", at: "fd00::2"), local)
    XCTAssertEqual(try peer("fd00::3", at: "::ffff:127.0.0.1"), local)
    // Other hosts.
    XCTAssertEqual(try peer("10.0.0.2"), "10.0.0.2")
    XCTAssertEqual(try peer("::ffff:10.0.0.2", at: "::ffff:10.0.0.1"), "10.0.0.2")
    XCTAssertEqual(try peer("fd00::3", at: "fd00::2"), "fd00::3")
    XCTAssertEqual(try peer("fd00::4", at: "fd00::2"), "fd00::4", "not grouped by prefix")
    XCTAssertEqual(try peer("128.0.0.1"), "128.0.0.1")
    XCTAssertEqual(PeerConnectionLimit.peer(of: nil, at: nil), "unknown")
  }

  func testRefusalsAreReportedTheFirstTimeAndAtEachPowerOfTen() {
    let reported = Locked<[Int]>([])
    let limit = PeerConnectionLimit(limit: 1) { total in reported.withLock { $0.append(total) } }
    XCTAssertNotNil(limit.admit("peer"))
    for _ in 0..<1_000 { XCTAssertNil(limit.admit("peer")) }
    XCTAssertEqual(reported.withLock { $0 }, [1, 10, 100, 1_000])
    XCTAssertEqual(limit.refusedCount, 1_000)
  }

  func testALimitBelowOneStillAdmitsOneConnection() {
    let limit = PeerConnectionLimit(limit: -5) { _ in }
    XCTAssertEqual(limit.limit, 1)
    XCTAssertNotNil(limit.admit("peer"))
    XCTAssertNil(limit.admit("peer"))
  }
}
