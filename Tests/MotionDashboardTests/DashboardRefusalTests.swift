// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDashboard
import XCTest

/// What a host without the token can hold on an exposed dashboard: refused requests lose their
/// connection, and one peer address holds at most `maximumConnectionsPerPeer` connections. Before,
/// a 401 or 403 kept the connection open for more keep-alive requests, and one host could take
/// all 128 slots, keeping every page out.
///
/// Other local users connect from other loopback addresses (`127.0.0.2`), which Linux routes to the
/// server on `127.0.0.1`; all of them are one peer, the machine's.
final class DashboardRefusalTests: XCTestCase {
  private static let token = "k3y"

  /// Runs `body` with the port of a dashboard (the simulator's flat scenario, with the token and
  /// `limits`) on a thread of its own, as the raw connections block; the server stops after it.
  private func withDashboard(
    _ limits: DashboardConnectionLimits = DashboardConnectionLimits(),
    _ body: @escaping @Sendable (_ port: Int) throws -> Void
  ) async throws {
    var configuration = DashboardConfiguration(
      port: 0, token: Self.token, source: .simulator(scenario: "flat"))
    configuration.connectionLimits = limits
    let (url, task) = try await DashboardServerTests.start(configuration)
    defer { task.cancel() }
    let port = try XCTUnwrap(url.port)
    try await onThread { try body(port) }
  }

  private static func get(_ path: String, port: Int, extraHeaders: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(extraHeaders)\r\n"
  }

  /// A request without the token (401) and one from another site (403) are answered with
  /// `Connection: close` and the server closes the connection; a request with the token keeps its
  /// connection for the next one.
  func testRefusedRequestsCloseTheirConnection() async throws {
    try await withDashboard { port in
      let noToken = try DashboardRawConnection(port: port)
      try noToken.send(Self.get("/", port: port))
      let unauthorized = noToken.head()
      XCTAssertTrue(unauthorized.hasPrefix("HTTP/1.1 401"), unauthorized)
      XCTAssertTrue(unauthorized.lowercased().contains("connection: close"), unauthorized)
      XCTAssertTrue(noToken.waitForClose(timeout: 3), "the 401's connection is closed")

      let otherSite = try DashboardRawConnection(port: port)
      try otherSite.send(
        Self.get(
          "/?token=\(Self.token)", port: port, extraHeaders: "Origin: http://evil.example\r\n"))
      let forbidden = otherSite.head()
      XCTAssertTrue(forbidden.hasPrefix("HTTP/1.1 403"), forbidden)
      XCTAssertTrue(forbidden.lowercased().contains("connection: close"), forbidden)
      XCTAssertTrue(otherSite.waitForClose(timeout: 3), "the 403's connection is closed")

      // With the token, the same connection serves a second request after the refusals' linger.
      let page = try DashboardRawConnection(port: port)
      try page.send(Self.get("/?token=\(Self.token)", port: port))
      XCTAssertTrue(page.head().hasPrefix("HTTP/1.1 200"))
      Thread.sleep(forTimeInterval: 0.5)
      try page.send(Self.get("/?token=\(Self.token)", port: port))
      let second = String(decoding: page.receive(timeout: 5) ?? [], as: UTF8.self)
      XCTAssertTrue(second.contains("HTTP/1.1 200"), second)
    }
  }

  /// One address opens three times its share of connections: all beyond its share are closed
  /// (each wait ends at the close; the held ones wait out their 0.3 s), and a page is served at
  /// once although the server serves only 8 connections at a time. Both are local, so one peer:
  /// the flood's connections gave way, oldest first, and the page's takes the place of another.
  func testOneHostCannotHoldEveryConnection() async throws {
    try await withDashboard(
      DashboardConnectionLimits(maximumConnections: 8, maximumConnectionsPerPeer: 4)
    ) { port in
      let flood = try (0..<12).map { _ in
        try DashboardRawConnection(port: port, from: "127.0.0.2")
      }
      let closed = flood.filter { $0.waitForClose(timeout: 0.3) }.count
      XCTAssertEqual(closed, 8)
      // The flood's last four hold the machine's share (until the request-head timeout, 10 s by
      // default); the page, with the token, makes room for itself.
      let page = try DashboardRawConnection(port: port, from: "127.0.0.1")
      try page.send(Self.get("/?token=\(Self.token)", port: port))
      XCTAssertEqual(page.status(timeout: 3), 200)
      // The flooding address itself can have a slot again once it gives one back.
      flood.forEach { $0.close() }
      var again: DashboardRawConnection?
      let deadline = Date(timeIntervalSinceNow: 3)
      while deadline.timeIntervalSinceNow > 0 {
        let connection = try DashboardRawConnection(port: port, from: "127.0.0.2")
        try connection.send(Self.get("/?token=\(Self.token)", port: port))
        if connection.status(timeout: 1) == 200 {
          again = connection
          break
        }
      }
      XCTAssertNotNil(again, "a closed connection gives its slot back")
    }
  }

  /// Other local users connect from loopback addresses of their choosing (127.0.0.2, 127.0.0.3,
  /// …), each counted as a peer of its own: two of them held the 32 connections the server serves
  /// at once with idle connections, and the owner's request waited in the listen queue until the
  /// request-head timeout (here 120 s) closed some. They are one peer now, the machine, whose
  /// idle connections give way to the owner's.
  func testOtherLoopbackAddressesDoNotGetSharesOfTheirOwn() async throws {
    let limits = DashboardConnectionLimits(
      requestHeadTimeout: 120, idleTimeout: 120, maximumConnections: 32,
      maximumConnectionsPerPeer: 16)
    try await withDashboard(limits) { port in
      let squatters = try ["127.0.0.2", "127.0.0.3"].flatMap { source in
        try (0..<16).map { _ in try DashboardRawConnection(port: port, from: source) }
      }
      let owner = try DashboardRawConnection(port: port, from: "127.0.0.1")
      try owner.send(Self.get("/?token=\(Self.token)", port: port))
      XCTAssertEqual(owner.status(timeout: 5), 200, "the owner's page is served at once")
      // The machine's share is 16: the 33 connections made 17 give way (the closed ones' waits end
      // at the close; the 15 held ones wait out their 0.3 s).
      XCTAssertEqual(squatters.filter { $0.waitForClose(timeout: 0.3) }.count, 17)
    }
  }

  /// Every local user is 127.0.0.1: another user used to lock the owner out of a loopback
  /// dashboard by holding its address's share of connections, idle. Connections that have not
  /// sent the token now give way to newer ones of the same address; those that have (the
  /// owner's) do not.
  func testIdleConnectionsWithoutTheTokenGiveWayToTheOwners() async throws {
    // Idle connections are not closed for their silence during the test.
    let limits = DashboardConnectionLimits(
      requestHeadTimeout: 120, idleTimeout: 120, maximumConnections: 16,
      maximumConnectionsPerPeer: 4)
    try await withDashboard(limits) { port in
      let squatters = try (0..<4).map { _ in try DashboardRawConnection(port: port) }
      // Accepted and holding the address's four slots.
      XCTAssertEqual(squatters.filter { $0.waitForClose(timeout: 0.3) }.count, 0)
      let owner = try DashboardRawConnection(port: port)
      try owner.send(Self.get("/?token=\(Self.token)", port: port))
      XCTAssertEqual(owner.status(timeout: 5), 200, "the owner's page is served")
      XCTAssertEqual(
        squatters.filter { $0.waitForClose(timeout: 1) }.count, 1, "the oldest idle one gave way")
      // More idle connections push out the other idle ones, never the owner's.
      let more = try (0..<3).map { _ in try DashboardRawConnection(port: port) }
      XCTAssertEqual(squatters.filter { $0.waitForClose(timeout: 1) }.count, 4)
      Thread.sleep(forTimeInterval: 0.5)
      try owner.send(Self.get("/?token=\(Self.token)", port: port))
      let second = String(decoding: owner.receive(timeout: 5) ?? [], as: UTF8.self)
      XCTAssertTrue(second.contains("HTTP/1.1 200"), "the owner's connection stays: \(second)")
      withExtendedLifetime(more) {}
    }
  }
}
