// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import XCTest
import _MotionTestSupport

@testable import MotionDashboard

/// With a token, a connection that has not proven itself gives way to a newer one from its peer,
/// and every connection from this machine is one peer. The access middleware proved the owner's
/// connection only once Hummingbird's task for it had a thread of Swift concurrency's pool and
/// ran the router, so while the pool was busy (motiond shares it) a local user who opened a
/// share of connections closed the owner's page load. The request head now proves its
/// connection on the event loop, as soon as it is decoded.
///
/// XCTest, not Swift Testing: its tests run on a thread of their own, outside the pool that this
/// test fills, and one at a time.
final class DashboardBusyPoolTests: XCTestCase {
  private static let token = "k3y"

  func testTheOwnersConnectionDoesNotGiveWayWhileThePoolIsBusy() throws {
    var configuration = DashboardConfiguration(
      port: 0, token: Self.token, source: .simulator(scenario: "flat"))
    // Idle connections are not closed for their silence during the test; four per peer keep the
    // connections below the ten that NIO accepts before Hummingbird's accept loop (a task, which
    // cannot run here) takes them.
    configuration.connectionLimits = DashboardConnectionLimits(
      requestHeadTimeout: 120, idleTimeout: 120, maximumConnections: 32,
      maximumConnectionsPerPeer: 4)
    let server = DashboardServer(configuration: configuration)
    let url = Locked<URL?>(nil)
    let running = DispatchSemaphore(value: 0)
    // The server's tasks (and each connection's, its children) run at the priority whose pool
    // threads the blocker takes.
    let task = Task(priority: .medium) {
      try await server.run(onRunning: { started in
        url.withLock { $0 = started }
        running.signal()
      })
    }
    defer { task.cancel() }
    XCTAssertEqual(running.wait(timeout: .now() + 60), .success, "the server did not start")
    let port = try XCTUnwrap(url.withLock { $0 }?.port)

    let blocker = PoolBlocker()
    defer { blocker.release() }
    XCTAssertEqual(
      blocker.occupyThePool(priority: .medium), PoolBlocker.poolWidth, "pool not filled")

    let provenBefore = DashboardEarlyProof.provenCount
    let owner = try DashboardRawConnection(port: port)
    try owner.send("GET /?token=\(Self.token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
    // The head is handled on an event loop; without the early proof this wait runs out (a
    // failure bound, not a pause) and the owner's connection is the one that gives way below.
    let deadline = Date(timeIntervalSinceNow: 20)
    while DashboardEarlyProof.provenCount == provenBefore, deadline.timeIntervalSinceNow > 0 {
      Thread.sleep(forTimeInterval: 0.01)
    }

    // Another local user's idle connections: the fourth is one too many for the peer, and the
    // oldest unproven connection gives way, which is the first of them, not the owner's.
    let squatters = try (0..<4).map { _ in try DashboardRawConnection(port: port) }
    XCTAssertTrue(squatters[0].waitForClose(timeout: 20), "the oldest idle connection gave way")

    // Once the pool is free the owner's request is answered on its connection.
    blocker.release()
    XCTAssertEqual(owner.status(timeout: 20), 200, "the owner's connection was closed")
    withExtendedLifetime(squatters) {}
  }
}
