// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import PhoneStreamDecoding
@testable import PhoneStreams

/// What a peer can make the Sensor Logger receiver keep. The receiver has no per-device or
/// per-session slots: one listening session decodes every push into one ``SensorLoggerStream``,
/// `deviceId` is never read, and a new `sessionId` replaces the recording's state (held messages,
/// converter, reorder buffer) instead of adding to it. Within one session, held messages are
/// capped (``SensorLoggerMessageSequencer/maximumHeldMessages``, `DecodingHardeningTests`).
final class SensorLoggerStateBoundTests: XCTestCase {
  private func batch(messageID: Int, session: String, device: String) throws -> SensorLoggerBatch {
    try SensorLoggerBatch(
      body: Array(
        ("{\"messageId\":\(messageID),\"sessionId\":\"\(session)\",\"deviceId\":\"\(device)\","
          + "\"payload\":[]}").utf8))
  }

  /// 10 000 sessions, each with a message that waits for its predecessor: each new session hands
  /// back the previous one's message at once, so at most one message is ever held.
  func testDistinctSessionsReplaceTheStateInsteadOfAddingToIt() throws {
    var sequencer = SensorLoggerMessageSequencer(window: 1_000)
    var released = 0
    for index in 0..<10_000 {
      let (ready, sessionChanged) = sequencer.accept(
        try batch(messageID: 1, session: "s\(index)", device: "d\(index)"), now: 0)
      XCTAssertEqual(sessionChanged, index > 0)
      XCTAssertEqual(ready.count, index > 0 ? 1 : 0, "session \(index)")
      released += ready.count
    }
    XCTAssertEqual(released, 9_999)
    XCTAssertEqual(sequencer.release(now: 0, flushAll: true).count, 1, "only the last is held")
  }

  /// Over the network, without a token: 300 pushes from as many made-up devices and sessions are
  /// each accepted and replace the state; the phone that comes next is delivered as usual. With a
  /// token, the same pushes never reach the stream (404, connection closed).
  func testPushesWithManyDeviceAndSessionIDsDoNotAccumulate() throws {
    for token in [nil, "k3y"] as [String?] {
      let receiver = SensorLoggerReceiver(
        configuration: .init(
          bindAddress: "127.0.0.1", port: 0, platform: .android, messageReorderWindow: 30,
          sampleHoldTime: 0.02, maximumSampleDelay: 0.05, clock: .phone, token: token))
      let collector = NetworkEventCollector()
      let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
      defer { subscription.cancel() }
      let port = try XCTUnwrap(receiver.listeningPort)
      var client = try NetworkTestHTTPClient(port: port)
      for index in 0..<300 {
        // Message 1 of each session waits (30 s) for a message 0 that never comes, unless a new
        // session releases it.
        let body =
          "{\"messageId\":1,\"sessionId\":\"s\(index)\",\"deviceId\":\"d\(index)\",\"payload\":"
          + "[{\"name\":\"gyroscope\",\"time\":\(NetworkSensorLoggerTests.baseTime + Int64(index) * 1_000_000),"
          + "\"values\":{\"x\":9,\"y\":9,\"z\":9}}]}"
        let status = try client.post(body, path: "/data").status
        XCTAssertEqual(status, token == nil ? 200 : 404)
        if token != nil { client = try NetworkTestHTTPClient(port: port) }
      }
      let phone = try NetworkTestHTTPClient(port: port)
      let genuine = NetworkSensorLoggerTests.body(
        messageID: 0, session: "phone",
        readings: [("gyroscope", 400, NetworkSensorLoggerTests.xyz(1, 2, 3))])
      XCTAssertEqual(try phone.post(genuine, path: token.map { "/\($0)" } ?? "/data").status, 200)
      XCTAssertTrue(
        collector.wait(timeout: 3) { $0.samples.contains { $0.gyroscope?.x == 1 } },
        "the phone's sample after \(collector.samples.count) others")
      let made = collector.samples.filter { $0.gyroscope?.x == 9 }.count
      // Every made-up session was handed on when the next began (none kept waiting); with a
      // token none got in.
      XCTAssertEqual(made, token == nil ? 300 : 0, "token \(token ?? "none")")
    }
  }
}
