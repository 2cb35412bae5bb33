// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionSensors
import SourceComposition
import XCTest
import _MotionTestSupport

@testable import MotionDashboard

/// The dashboard stops when its task is cancelled (motiond's `DaemonDashboard.stop()` waits 5 s
/// for it). Hummingbird waits, uncancellably, for a connection's first request head before it
/// handles the connection (the WebSocket upgrade's negotiation), so one connection that had sent
/// nothing held the stop until the request-head timeout closed it (10 s by default). Such a
/// connection is now closed at once when it is asked to quiesce (`DashboardConnectionGuard`).
///
/// The first test checks that close. The quiesce reaches the connections there through
/// Hummingbird's own graceful shutdown, which the cancellation starts, as well as through the
/// dashboard's `ServerDrain`; it passes with either alone (checked 2026-11-30). The drain is for a
/// stop while every pool thread is busy, when Hummingbird's shutdown task cannot run: the second
/// test, which fails without it (checked 2026-11-30). The third checks that such a stop ends the
/// source's subscriptions too (it fails without `DashboardHub.stopSource()` in the cancellation,
/// checked 2026-12-01).
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

  /// Runs a dashboard with `configuration` in a task at `priority`, waiting on this thread (not
  /// a pool thread) until it listens; `finished` is signalled when its run returns.
  private func runServer(
    _ configuration: DashboardConfiguration, priority: TaskPriority? = nil,
    makeSource: @escaping @Sendable (SourceSpecification) throws -> any SensorSource = SourceFactory
      .makeSource
  ) throws -> (task: Task<Void, any Error>, port: Int, finished: DispatchSemaphore) {
    let server = DashboardServer(configuration: configuration)
    let url = Locked<URL?>(nil)
    let running = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    let task = Task(priority: priority) {
      defer { finished.signal() }
      try await server.run(
        makeSource: makeSource,
        onRunning: { started in
          url.withLock { $0 = started }
          running.signal()
        })
    }
    guard running.wait(timeout: .now() + 60) == .success, let port = url.withLock({ $0 })?.port
    else {
      task.cancel()
      throw DidNotStart()
    }
    return (task, port, finished)
  }

  private struct DidNotStart: Error, CustomStringConvertible {
    var description: String { "the dashboard did not start within 60 s" }
  }

  /// The dashboard's `ServerDrain` case: a stop while every thread of Swift concurrency's pool is
  /// busy (motiond shares the pool). Hummingbird's graceful shutdown runs in a task of its own,
  /// which cannot start then, so nothing asked the connections to quiesce and the listener kept
  /// accepting until a thread was free; the drain does both on the cancelling thread. The stop
  /// itself still completes only once a pool thread is free, since the server's tasks run there.
  ///
  /// A plain (non-async) test, as DashboardBusyPoolTests: it runs on a thread outside the pool.
  func testTheStopClosesIdleConnectionsWhileThePoolIsBusy() throws {
    var configuration = DashboardConfiguration(
      port: 0, token: "k3y", source: .simulator(scenario: "flat"))
    configuration.connectionLimits = DashboardConnectionLimits(
      requestHeadTimeout: 120, idleTimeout: 120, maximumConnections: 32,
      maximumConnectionsPerPeer: 8)
    // At the priority whose pool threads the blocker takes, as DashboardBusyPoolTests.
    let (task, port, finished) = try runServer(configuration, priority: .medium)
    defer { task.cancel() }

    // A page loaded on a keep-alive connection while the pool is free, then idle connections.
    let page = try DashboardRawConnection(port: port)
    try page.send("GET /?token=k3y HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
    XCTAssertEqual(page.status(timeout: 20), 200)
    let idle = try (0..<4).map { _ in try DashboardRawConnection(port: port) }

    let blocker = PoolBlocker()
    defer { blocker.release() }
    XCTAssertEqual(
      blocker.occupyThePool(priority: .medium), PoolBlocker.poolWidth, "pool not filled")

    task.cancel()
    // Failure bounds: the closes take milliseconds, on the event loops, with the pool still full.
    XCTAssertEqual(idle.filter { $0.waitForClose(timeout: 10) }.count, 4, "idle ones left open")
    XCTAssertTrue(page.waitForClose(timeout: 10), "the page's connection was left open")
    // The listener is closed too (on its own event loop, so perhaps a moment after them).
    let deadline = Date(timeIntervalSinceNow: 10)
    var isRefused = false
    while !isRefused, deadline.timeIntervalSinceNow > 0 {
      // Refused, not timed out: a listener that stops accepting fills its backlog and then
      // lets connects time out.
      do { _ = try DashboardRawConnection(port: port) } catch {
        isRefused = "\(error)".hasSuffix("errno \(ECONNREFUSED)")
        if !isRefused { break }
      }
      if !isRefused { Thread.sleep(forTimeInterval: 0.01) }
    }
    XCTAssertTrue(isRefused, "the dashboard still accepts connections")

    // The server's run returns once the pool has a thread for it.
    blocker.release()
    XCTAssertEqual(finished.wait(timeout: .now() + 20), .success, "the stop did not finish")
  }

  /// The same stop ends the source's subscriptions while the pool is still full (for motiond's
  /// dashboard, its streams from the daemon). They ended with the rest of the server's run, on a
  /// pool thread: motiond gave up waiting for its dashboard after 5 s and stopped with the
  /// dashboard still subscribed.
  func testTheStopEndsTheSourcesSubscriptionsWhileThePoolIsBusy() throws {
    let source = SubscriptionCountingSource(
      try SourceFactory.makeSource(.simulator(scenario: "flat")))
    let configuration = DashboardConfiguration(
      port: 0, token: "k3y", source: .simulator(scenario: "flat"))
    // At the priority whose pool threads the blocker takes, as DashboardBusyPoolTests.
    let (task, port, finished) = try runServer(
      configuration, priority: .medium, makeSource: { _ in source })
    defer { task.cancel() }

    // A page's WebSocket starts the source.
    let page = try DashboardRawConnection(port: port)
    try page.send(
      "GET /ws?token=k3y HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\n"
        + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        + "Sec-WebSocket-Version: 13\r\n\r\n")
    XCTAssertEqual(page.status(timeout: 20), 101)
    var deadline = Date(timeIntervalSinceNow: 60)
    while source.liveSubscriptions == 0, deadline.timeIntervalSinceNow > 0 {
      Thread.sleep(forTimeInterval: 0.01)
    }
    XCTAssertGreaterThan(source.liveSubscriptions, 0, "the page did not start the source")

    let blocker = PoolBlocker()
    defer { blocker.release() }
    XCTAssertEqual(
      blocker.occupyThePool(priority: .medium), PoolBlocker.poolWidth, "pool not filled")

    task.cancel()
    // A failure bound: the subscriptions end within milliseconds, with the pool still full.
    deadline = Date(timeIntervalSinceNow: 10)
    while source.liveSubscriptions > 0, deadline.timeIntervalSinceNow > 0 {
      Thread.sleep(forTimeInterval: 0.01)
    }
    XCTAssertEqual(source.liveSubscriptions, 0, "the source is still subscribed")

    blocker.release()
    XCTAssertEqual(finished.wait(timeout: .now() + 20), .success, "the stop did not finish")
  }

  /// A history provider whose read never returns while the test holds `gate`, and ignores
  /// cancellation (as the daemon's store reads, which wait on a queue of their own).
  private struct HangingHistory: DashboardHistoryProvider {
    let gate: DispatchSemaphore
    let entered: DispatchSemaphore

    func history() async throws -> DashboardHistory {
      entered.signal()
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
          gate.wait()
          continuation.resume()
        }
      }
      return DashboardHistory(days: [], recorderStart: nil, recorderEnd: nil, clients: [])
    }
  }

  /// The server's run waited for every request in progress, and a request for the history
  /// waited for the provider's read whether or not the request was cancelled, so a read that
  /// never returned held the stop for ever (motiond gives up waiting after 5 s, and its
  /// dashboard then outlived it). The request now ends with its cancellation.
  func testAHistoryReadThatNeverReturnsDoesNotHoldTheStop() throws {
    let gate = DispatchSemaphore(value: 0)
    let entered = DispatchSemaphore(value: 0)
    defer { gate.signal() }
    var configuration = DashboardConfiguration(
      port: 0, token: "k3y", source: .simulator(scenario: "flat"))
    configuration.history = HangingHistory(gate: gate, entered: entered)
    let (task, port, finished) = try runServer(configuration)
    defer { task.cancel() }
    let client = try DashboardRawConnection(port: port)
    try client.send("GET /api/history?token=k3y HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
    XCTAssertEqual(entered.wait(timeout: .now() + 20), .success, "the read did not start")

    task.cancel()
    // A failure bound: the stop takes milliseconds.
    XCTAssertEqual(finished.wait(timeout: .now() + 10), .success, "the stop waited for the read")
    withExtendedLifetime(client) {}
  }
}

/// A source that passes everything to another and counts the subscriptions not cancelled yet.
private final class SubscriptionCountingSource: SensorSource, @unchecked Sendable {
  // Sendable: `live` is locked, the rest is immutable.
  private let inner: any SensorSource
  private let live = Locked(0)

  init(_ inner: any SensorSource) { self.inner = inner }

  var name: String { inner.name }
  var availableSensors: SensorSet { inner.availableSensors }
  var supportedSampleRates: ClosedRange<Double> { inner.supportedSampleRates }
  var liveSubscriptions: Int { live.withLock { $0 } }

  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    live.withLock { $0 += 1 }
    let subscription = inner.subscribe(requestedSampleRate: requestedSampleRate, handler)
    return SourceSubscription { [live] in
      subscription.cancel()
      live.withLock { $0 -= 1 }
    }
  }
}
