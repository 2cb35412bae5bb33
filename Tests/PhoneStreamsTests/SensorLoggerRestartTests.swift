// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import PhoneStreams

/// A subscription stopped and started again while the old server still has a request in flight.
///
/// The decoding state now records which listening session it belongs to, so that a stopped
/// session's worker that outlives the stop's wait (`LiveSourceHub.stopTimeout`, 3 s) cannot clear
/// the next session's state with its last flush (every push to the new session would then be
/// answered 503 "stopping"). In this test the old server shuts down within the wait (the request
/// still arriving is dropped at once), so it checks the restart around a request in flight, not
/// the late flush itself, which needs a server slower to stop than any this test can make.
final class SensorLoggerRestartTests: XCTestCase {
  typealias Logger = NetworkSensorLoggerTests

  func testARestartWithARequestInFlightLeavesTheNextSessionWorking() throws {
    let receiver = SensorLoggerReceiver(
      configuration: .init(
        bindAddress: "127.0.0.1", port: 0, platform: .android, messageReorderWindow: 0.2,
        sampleHoldTime: 0.02, maximumSampleDelay: 0.05, clock: .phone, idleTimeout: 10,
        requestBodyTimeout: 5))
    let collector = NetworkEventCollector()
    var subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    let oldPort = try XCTUnwrap(receiver.listeningPort)
    // A request whose body never finishes, in flight when the session stops.
    let trickling = try NetworkTestSocket.connect(port: oldPort)
    _ = try trickling.send(
      Array(
        "POST /data HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
          .utf8))
    Thread.sleep(forTimeInterval: 0.2)
    subscription.cancel()
    subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let port = try XCTUnwrap(receiver.listeningPort)
    // The old session's connection is closed and its worker has ended and flushed by now.
    XCTAssertTrue(trickling.waitForClose(timeout: 8), "the request in flight is dropped")
    Thread.sleep(forTimeInterval: 0.5)
    let client = try NetworkTestHTTPClient(port: port)
    let before = collector.samples.count
    let body = Logger.body(messageID: 0, readings: [("gyroscope", 10, Logger.xyz(1, 2, 3))])
    XCTAssertEqual(try client.post(body).status, 200)
    XCTAssertTrue(collector.wait(timeout: 3) { $0.samples.count > before }, "\(collector.all)")
  }
}
