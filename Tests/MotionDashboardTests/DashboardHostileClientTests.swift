// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDashboard
import XCTest

/// Clients that attack the dashboard over loopback: pages from other sites (a sandboxed iframe's
/// `Origin: null`, DNS rebinding), and connections that hold resources without using them.
///
/// Timeouts here are generous upper bounds on things that take well under a second when the
/// server works; none of the tests passes by waiting for "nothing to happen".
final class DashboardHostileClientTests: XCTestCase {
  private static func upgrade(host: String, extraHeaders: String = "") -> String {
    "GET /ws HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
      + extraHeaders + "\r\n"
  }

  private static func status(port: Int, _ request: String) throws -> Int? {
    let connection = try DashboardRawConnection(port: port)
    try connection.send(request)
    return connection.status()
  }

  func testPagesFromOtherSitesAndRebindingHostsAreRefused() async throws {
    let configuration = DashboardConfiguration(port: 0, source: .simulator(scenario: "flat"))
    let (url, task) = try await DashboardServerTests.start(configuration)
    defer { task.cancel() }
    let port = try XCTUnwrap(url.port)
    let own = "127.0.0.1:\(port)"
    let foxglove = "Sec-WebSocket-Protocol: foxglove.websocket.v1\r\n"
    try await onThread {
      // The page itself and Foxglove's web app get in.
      XCTAssertEqual(
        try Self.status(
          port: port, Self.upgrade(host: own, extraHeaders: "Origin: http://\(own)\r\n")), 101)
      XCTAssertEqual(
        try Self.status(
          port: port,
          Self.upgrade(
            host: "localhost:\(port)",
            extraHeaders: foxglove + "Origin: https://app.foxglove.dev\r\n")), 101)
      XCTAssertEqual(
        try Self.status(port: port, "GET / HTTP/1.1\r\nHost: [::1]:\(port)\r\n\r\n"), 200)
      // A sandboxed iframe on any site sends `Origin: null`.
      XCTAssertNotEqual(
        try Self.status(
          port: port, Self.upgrade(host: own, extraHeaders: foxglove + "Origin: null\r\n")), 101)
      XCTAssertNotEqual(
        try Self.status(port: port, Self.upgrade(host: own, extraHeaders: "Origin: null\r\n")),
        101)
      // DNS rebinding: evil.example resolves to 127.0.0.1, so Origin and Host agree.
      let rebound = "evil.example:\(port)"
      XCTAssertNotEqual(
        try Self.status(
          port: port,
          Self.upgrade(host: rebound, extraHeaders: "Origin: http://\(rebound)\r\n")), 101)
      XCTAssertEqual(
        try Self.status(port: port, "GET / HTTP/1.1\r\nHost: \(rebound)\r\n\r\n"), 403)
      XCTAssertEqual(
        try Self.status(
          port: port,
          "GET /api/history HTTP/1.1\r\nHost: \(own)\r\nOrigin: http://evil.example\r\n\r\n"), 403)
      XCTAssertEqual(
        try Self.status(
          port: port,
          "GET /api/history/day?date=2026-11-23 HTTP/1.1\r\nHost: \(own)\r\nOrigin: http://evil.example\r\n\r\n"
        ), 403)
      // Another local server (another port) is another site.
      XCTAssertNotEqual(
        try Self.status(
          port: port,
          Self.upgrade(host: own, extraHeaders: "Origin: http://127.0.0.1:\(port + 1)\r\n")), 101)
    }
  }

  func testIdleHalfSentAndOversizedConnectionsAreClosed() async throws {
    var configuration = DashboardConfiguration(port: 0, source: .simulator(scenario: "flat"))
    configuration.connectionLimits = DashboardConnectionLimits(
      requestHeadTimeout: 0.5, idleTimeout: 0.5, maximumConnections: 8)
    let (url, task) = try await DashboardServerTests.start(configuration)
    defer { task.cancel() }
    let port = try XCTUnwrap(url.port)
    try await onThread {
      let silent = try DashboardRawConnection(port: port)
      let halfSent = try DashboardRawConnection(port: port)
      try halfSent.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
      let oversized = try DashboardRawConnection(port: port)
      try oversized.send(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: " + String(repeating: "a", count: 100_000)
          + "\r\n\r\n")
      let keepAlive = try DashboardRawConnection(port: port)
      try keepAlive.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
      XCTAssertEqual(keepAlive.status(), 200)
      XCTAssertTrue(silent.waitForClose(timeout: 10), "a connection that sends nothing")
      XCTAssertTrue(halfSent.waitForClose(timeout: 10), "a request head that never ends")
      XCTAssertTrue(oversized.waitForClose(timeout: 10), "a header beyond the parser's limit")
      XCTAssertTrue(keepAlive.waitForClose(timeout: 10), "an idle keep-alive connection")

      // More idle connections than are served at once: a page still gets through once the
      // idle ones are dropped.
      let flood = try (0..<24).map { _ in try DashboardRawConnection(port: port) }
      let page = try DashboardRawConnection(port: port)
      try page.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
      XCTAssertEqual(page.status(timeout: 20), 200)
      withExtendedLifetime(flood) {}
    }
  }

  func testAWebSocketClientThatNeverReadsIsClosed() async throws {
    var configuration = DashboardConfiguration(
      port: 0, source: .simulator(scenario: "tour", speed: .multiplier(4)), updateRate: 100)
    configuration.connectionLimits = DashboardConnectionLimits(stalledWriteTimeout: 0.5)
    let (url, task) = try await DashboardServerTests.start(configuration)
    defer { task.cancel() }
    let port = try XCTUnwrap(url.port)
    try await onThread {
      let stalled = try DashboardRawConnection(port: port, receiveBufferBytes: 4096)
      try stalled.send(Self.upgrade(host: "127.0.0.1:\(port)"))
      // Never read while frames pile up (about 150 kB/s fill the server's 256 KiB socket
      // buffer within seconds), then drain: a closed connection ends; an open one keeps going.
      Thread.sleep(forTimeInterval: 8)
      XCTAssertTrue(stalled.waitForClose(timeout: 10), "the unread connection was closed")
    }
  }
}
