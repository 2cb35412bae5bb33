// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest
import _MotionTestSupport

@testable import PhoneStreams

/// Starting a phone stream is synchronous: `subscribe` waits (up to 5 s) until the Sensor Logger
/// receiver listens. Its server used to run on Swift concurrency's shared pool, so a caller that
/// held the pool's last free thread (an app starting updates from inside a `Task` on a
/// one-processor machine) waited for a server that could not run: the start failed after 5 s.
/// The server's tasks now run on an executor of their own.
///
/// XCTest, not Swift Testing: its tests run on a thread of their own, outside the pool that this
/// test fills, and one at a time.
final class PhoneStreamBusyPoolTests: XCTestCase {
  func testTheReceiverStartsServesAndStopsWhileEveryPoolThreadIsBusy() throws {
    // The server's task is detached with no priority of its own: it runs at the default
    // (medium) priority, whose threads these tasks take.
    let blocker = PoolBlocker()
    defer { blocker.release() }
    XCTAssertEqual(
      blocker.occupyThePool(priority: .medium), PoolBlocker.poolWidth, "pool not filled")

    let receiver = SensorLoggerReceiver(
      configuration: .init(
        bindAddress: "127.0.0.1", port: 0, platform: .android, sampleHoldTime: 0.05,
        maximumSampleDelay: 0.05, clock: .phone))
    let collector = NetworkEventCollector()
    let started = Date()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    let startSeconds = Date().timeIntervalSince(started)
    let port = try XCTUnwrap(receiver.listeningPort, "not listening: \(collector.failures)")
    // A start that needed the pool would end only at its 5 s deadline.
    XCTAssertLessThan(startSeconds, 4, "the start waited for the pool")

    // Requests are served (per connection, in child tasks of the server's) with the pool still full.
    let client = try NetworkTestHTTPClient(port: port)
    let body = NetworkSensorLoggerTests.body(
      messageID: 0,
      readings: [0, 100, 200].map { ("gyroscope", $0, NetworkSensorLoggerTests.xyz(0, 0, 1)) })
    XCTAssertEqual(try client.post(body).status, 200)
    // Held samples are released by the worker's tick (every 20 ms, after a 50 ms hold): its
    // timer needs no pool thread either (a `Task.sleep` wake-up waited about 0.9 s here).
    XCTAssertTrue(
      collector.wait(timeout: 0.6) { $0.samples.count >= 3 }, "samples: \(collector.samples.count)")
    XCTAssertTrue(collector.failures.isEmpty, "\(collector.failures)")

    // The stop is orderly and gives the port back, with the pool still full and the client's
    // keep-alive connection open. It used to ask Hummingbird for its graceful shutdown, which
    // runs in an unstructured task of its own (no executor preference): that waited for a pool
    // thread, so the worker was cancelled after its 2.5 s grace period, every time, and a
    // cancelled accept loop can trap in NIO. The server is now drained from the stop's thread.
    let cancelledBefore = PhoneStreamWorker.cancelledAfterGracePeriodCount
    let stopping = Date()
    subscription.cancel()
    let stopSeconds = Date().timeIntervalSince(stopping)
    XCTAssertEqual(
      PhoneStreamWorker.cancelledAfterGracePeriodCount, cancelledBefore,
      "the orderly stop did not end the server; it was cancelled after \(stopSeconds) s")
    XCTAssertLessThan(stopSeconds, LiveSourceHub.stopTimeout + 1, "the stop overran")
    XCTAssertTrue(
      client.socket.waitForClose(timeout: 5), "the keep-alive connection was not closed")
    // The port is free again: another receiver listens on it (still with the pool full).
    let again = SensorLoggerReceiver(
      configuration: .init(bindAddress: "127.0.0.1", port: port, platform: .android, clock: .phone))
    let second = NetworkEventCollector()
    let secondSubscription = again.subscribe(requestedSampleRate: 100, second.handler)
    XCTAssertEqual(again.listeningPort, port, "the port was not given back: \(second.failures)")
    secondSubscription.cancel()
    blocker.release()
  }
}
