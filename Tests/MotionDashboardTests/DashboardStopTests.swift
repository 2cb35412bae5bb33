// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionDashboard

/// The dashboard stops when its task is cancelled (motiond's `DaemonDashboard.stop()` waits 5 s
/// for it). Hummingbird waits, uncancellably, for a connection's first request head before it
/// handles the connection (the WebSocket upgrade's negotiation), so one connection that had sent
/// nothing held the stop until the request-head timeout closed it (10 s by default). Such a
/// connection is now closed at once when it is asked to quiesce (`DashboardConnectionGuard`).
///
/// What this checks is that close. The quiesce reaches the connections here through Hummingbird's
/// own graceful shutdown, which the cancellation starts, as well as through the dashboard's
/// `ServerDrain`; the test passes with either alone (checked 2026-11-30). The drain is for a stop
/// while every pool thread is busy, when Hummingbird's shutdown task cannot run, and no test
/// covers that case yet.
///
/// XCTest, not Swift Testing: the waits below block their thread (`onThread`).
final class DashboardStopTests: XCTestCase {
  func testConnectionsThatSentNothingDoNotHoldTheStop() async throws {
    var configuration = DashboardConfiguration(
      port: 0, token: "k3y", source: .simulator(scenario: "flat"))
    // Far beyond the bound below: only the stop itself may close the idle connections.
    configuration.connectionLimits = DashboardConnectionLimits(
      requestHeadTimeout: 120, idleTimeout: 120, maximumConnections: 32,
      maximumConnectionsPerPeer: 8)
    let (url, task) = try await DashboardServerTests.start(configuration)
    defer { task.cancel() }
    let finished = DispatchSemaphore(value: 0)
    Task {
      _ = try? await task.value
      finished.signal()
    }
    let port = try XCTUnwrap(url.port)
    try await onThread {
      // A page loaded on a keep-alive connection, and connections that have sent nothing.
      let page = try DashboardRawConnection(port: port)
      try page.send("GET /?token=k3y HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
      XCTAssertEqual(page.status(timeout: 20), 200)
      let idle = try (0..<4).map { _ in try DashboardRawConnection(port: port) }
      // Accepted and held (nothing closes them for 120 s).
      XCTAssertEqual(idle.filter { $0.waitForClose(timeout: 0.3) }.count, 0)

      task.cancel()
      // A failure bound: the stop takes milliseconds.
      XCTAssertEqual(finished.wait(timeout: .now() + 10), .success, "the stop waited for them")
      XCTAssertEqual(idle.filter { $0.waitForClose(timeout: 5) }.count, 4)
      XCTAssertTrue(page.waitForClose(timeout: 5), "the page's connection was closed")
    }
  }
}
