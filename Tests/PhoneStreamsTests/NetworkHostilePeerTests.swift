// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import PhoneStreamDecoding
@testable import PhoneStreams

/// Peers that misbehave on loopback: after each, a legitimate phone must still get through.
///
/// Timeouts here are generous upper bounds (seconds) on things that take milliseconds when the
/// receiver works; none of the tests passes by waiting for "nothing to happen".
final class NetworkHostilePeerTests: XCTestCase {
  typealias Logger = NetworkSensorLoggerTests

  private func makeReceiver(
    maximumBodySize: Int = 64 << 10, idleTimeout: Double = 10, maximumConnections: Int = 16,
    token: String? = nil, requestBodyTimeout: Double = 10, maximumConnectionsPerPeer: Int = 1_000
  ) -> SensorLoggerReceiver {
    SensorLoggerReceiver(
      configuration: .init(
        bindAddress: "127.0.0.1", port: 0, platform: .android, messageReorderWindow: 0.2,
        sampleHoldTime: 0.02, maximumSampleDelay: 0.05, maximumBodySize: maximumBodySize,
        clock: .phone, token: token, idleTimeout: idleTimeout,
        maximumConnections: maximumConnections, requestBodyTimeout: requestBodyTimeout,
        maximumConnectionsPerPeer: maximumConnectionsPerPeer))
  }

  /// Posts one genuine message on a new connection and waits until its sample is delivered.
  private func assertPhoneGetsThrough(
    _ receiver: SensorLoggerReceiver, _ collector: NetworkEventCollector, messageID: Int,
    path: String = "/data", file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let port = try XCTUnwrap(receiver.listeningPort, file: file, line: line)
    let client = try NetworkTestHTTPClient(port: port)
    let before = collector.samples.count
    let body = Logger.body(
      messageID: messageID, readings: [("gyroscope", messageID * 10, Logger.xyz(1, 2, 3))])
    XCTAssertEqual(try client.post(body, path: path).status, 200, file: file, line: line)
    XCTAssertTrue(
      collector.wait(timeout: 3) { $0.samples.count > before }, "no sample after \(collector.all)",
      file: file, line: line)
  }

  func testOversizedBodiesAreRefusedWith413() throws {
    let receiver = makeReceiver(maximumBodySize: 64 << 10)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let port = try XCTUnwrap(receiver.listeningPort)

    // A declared length beyond the limit.
    let big = try NetworkTestHTTPClient(port: port)
    let head =
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n"
    // Only a little more than the limit is sent, so the receiver has read everything when it
    // answers (closing with unread data would reset the connection before the answer is read).
    try big.socket.send(Array(head.utf8) + [UInt8](repeating: 0x20, count: 70_000))
    XCTAssertEqual(try big.readResponse().status, 413)

    // A chunked upload that grows past the limit.
    let chunked = try NetworkTestHTTPClient(port: port)
    try chunked.socket.send(
      Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
    let chunk = Array("2000\r\n".utf8) + [UInt8](repeating: 0x20, count: 0x2000) + [13, 10]
    for _ in 0..<9 { try chunked.socket.send(chunk) }  // 72 KiB
    XCTAssertEqual(try chunked.readResponse().status, 413)

    // A chunk size that overflows any integer is a parse error, not a crash.
    let overflow = try NetworkTestSocket.connect(port: port)
    try overflow.send(
      Array(
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nab"
          .utf8))
    XCTAssertTrue(overflow.waitForClose(timeout: 3), "the connection is closed")

    XCTAssertTrue(
      collector.wait(timeout: 3) {
        $0.failures.contains { $0.message.contains("exceeded") && !$0.isFatal }
      })
    try assertPhoneGetsThrough(receiver, collector, messageID: 0)
  }

  /// Twelve oversized bodies: each sender gets its 413, but subscribers get the first refusal
  /// and then one at ten with the count, like the other refusals (before, one failure each, so a
  /// peer could flood every subscriber with them).
  func testOversizedBodiesAreReportedAtPowersOfTen() throws {
    let receiver = makeReceiver(maximumBodySize: 1_024)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let port = try XCTUnwrap(receiver.listeningPort)
    let head =
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n"
    for _ in 0..<12 {
      let big = try NetworkTestHTTPClient(port: port)
      // A little more than the limit, so all of it has been read when the answer comes.
      try big.socket.send(Array(head.utf8) + [UInt8](repeating: 0x20, count: 1_100))
      XCTAssertEqual(try big.readResponse().status, 413)
    }
    // Events arrive in order: once the phone's sample is in, every report before it is too.
    try assertPhoneGetsThrough(receiver, collector, messageID: 0)
    let reports = collector.failures.filter { $0.message.contains("exceeded") }
    XCTAssertEqual(reports.count, 2, "\(reports)")
    XCTAssertTrue(reports.last?.message.contains("(10 so far)") ?? false, "\(reports)")
    XCTAssertTrue(reports.allSatisfy { !$0.isFatal })
  }

  func testMalformedRequestsAreAnsweredAndTheReceiverStaysUp() throws {
    let receiver = makeReceiver()
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let port = try XCTUnwrap(receiver.listeningPort)

    let garbage = try NetworkTestSocket.connect(port: port)
    try garbage.send(Array("\u{1}\u{2}GARBAGE \u{7f}\r\n\r\n".utf8))
    XCTAssertTrue(garbage.waitForClose(timeout: 3))

    // Headers far beyond the parser's limit (80 KiB).
    let huge = try NetworkTestSocket.connect(port: port)
    let header =
      "POST / HTTP/1.1\r\nX-Filler: " + String(repeating: "a", count: 200_000) + "\r\n\r\n"
    try huge.send(Array(header.utf8), timeout: 1)
    XCTAssertTrue(huge.waitForClose(timeout: 3))

    // Hostile numbers in an otherwise valid message: extreme ids and times.
    let client = try NetworkTestHTTPClient(port: port)
    let extremes =
      "{\"messageId\":9223372036854775807,\"payload\":[{\"name\":\"gyroscope\",\"time\":9223372036854775807,"
      + "\"values\":{\"x\":1,\"y\":2,\"z\":3}}]}"
    XCTAssertEqual(try client.post(extremes).status, 200)
    let negative =
      "{\"messageId\":-1,\"payload\":[{\"name\":\"gravity\",\"time\":-9223372036854775808,"
      + "\"values\":{\"x\":0,\"y\":0,\"z\":9.8}},{\"name\":\"accelerometer\",\"time\":9223372036854775807,"
      + "\"values\":{\"x\":0,\"y\":0,\"z\":1}}]}"
    XCTAssertEqual(try client.post(negative).status, 200)
    let farApart =
      "{\"payload\":[{\"name\":\"gravity\",\"time\":-9223372036854775808,"
      + "\"values\":{\"x\":0,\"y\":0,\"z\":9.8}},{\"name\":\"accelerometer\",\"time\":9223372036854775807,"
      + "\"values\":{\"x\":0,\"y\":0,\"z\":1}}]}"
    XCTAssertEqual(try client.post(farApart).status, 200)
    XCTAssertTrue(
      collector.wait(timeout: 3) { $0.failures.contains { $0.message.contains("messageId") } },
      "\(collector.all)")
    XCTAssertTrue(collector.failures.allSatisfy { !$0.isFatal }, "\(collector.failures)")
    try assertPhoneGetsThrough(receiver, collector, messageID: 0)
  }

  func testIdleConnectionFloodDoesNotLockThePhoneOut() throws {
    let receiver = makeReceiver(idleTimeout: 0.2, maximumConnections: 16, requestBodyTimeout: 0.3)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let port = try XCTUnwrap(receiver.listeningPort)
    // Far more idle connections than the receiver serves at once, one of them mid-request.
    // Far more idle connections than the receiver serves at once (16), one stuck in its headers
    // and one trickling a body it never finishes.
    var idle = try (0..<64).map { _ in try NetworkTestSocket.connect(port: port) }
    try idle[0].send(Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Le".utf8))
    try idle[1].send(
      Array(
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
          .utf8))
    try assertPhoneGetsThrough(receiver, collector, messageID: 0)
    XCTAssertTrue(idle[0].waitForClose(timeout: 3), "an idle connection is closed by the receiver")
    XCTAssertTrue(idle[1].waitForClose(timeout: 3), "a body that never ends times out")
    idle.removeAll()
  }

  /// One machine's idle connections hold at most `maximumConnectionsPerPeer` of the receiver's
  /// slots, whichever of its addresses they come from. Before, 100 such connections kept every
  /// push out for as long as they were reopened; then each loopback address (127.0.0.2,
  /// 127.0.0.3, …) still got a share of its own, and two of them filled the 8 slots. Now each
  /// beyond the fourth closes the oldest idle one, so four are left and the phone gets through at
  /// once. (Another host's own share is PeerConnectionLimitTests' to check: every test connection
  /// comes from this machine.)
  func testOneMachinesIdleConnectionsCannotFillTheReceiver() throws {
    let receiver = makeReceiver(
      idleTimeout: 10, maximumConnections: 8, maximumConnectionsPerPeer: 4)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let port = try XCTUnwrap(receiver.listeningPort)
    let idle = try ["127.0.0.2", "127.0.0.3"].flatMap { source in
      try (0..<16).map { _ in try NetworkTestSocket.connect(port: port, from: source) }
    }
    // All but four are closed (each wait ends at the close; the four held ones wait out their
    // 0.3 s).
    let closed = idle.filter { $0.waitForClose(timeout: 0.3) }.count
    XCTAssertEqual(closed, 28)
    XCTAssertTrue(
      collector.wait(timeout: 3) { events in
        events.failures.contains { $0.message.contains("to make room") && !$0.isFatal }
      }, "\(collector.failures)")
    try assertPhoneGetsThrough(receiver, collector, messageID: 0)
    withExtendedLifetime(idle) {}
  }

  /// A phone pushing through a tunnel to localhost (adb reverse) is the same peer as every local
  /// process. One that kept four idle connections open (each reopened as the idle timeout closed
  /// it) held the four slots, and the phone's connections were closed on arrival. Idle
  /// connections now give way to newer ones, oldest first, and a connection that has had a push
  /// accepted never does.
  func testIdleConnectionsGiveWayToThePhonesPushes() throws {
    // The idle timeout does not close the idle connections during the test.
    let receiver = makeReceiver(
      idleTimeout: 120, maximumConnections: 16, token: "k3y", maximumConnectionsPerPeer: 4)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let port = try XCTUnwrap(receiver.listeningPort)
    let squatters = try (0..<4).map { _ in try NetworkTestSocket.connect(port: port) }
    // Accepted and holding the machine's four slots.
    XCTAssertEqual(squatters.filter { $0.waitForClose(timeout: 0.3) }.count, 0)
    let phone = try NetworkTestHTTPClient(port: port)
    let first = Logger.body(messageID: 0, readings: [("gyroscope", 0, Logger.xyz(1, 2, 3))])
    XCTAssertEqual(try phone.post(first, path: "/k3y/data").status, 200, "the phone's push")
    // The oldest idle one gave way (which one is oldest is the order the server admitted them
    // in, its event loops' to decide).
    XCTAssertTrue(Self.waitUntil(closed: 1, of: squatters), "an idle connection gave way")
    // More idle connections push out the other idle ones (and then the oldest of their own),
    // never the phone's.
    let more = try (0..<4).map { _ in try NetworkTestSocket.connect(port: port) }
    XCTAssertTrue(Self.waitUntil(closed: 4, of: squatters), "the idle connections gave way")
    XCTAssertTrue(Self.waitUntil(closed: 1, of: more), "a newer idle connection gave way")
    let second = Logger.body(messageID: 1, readings: [("gyroscope", 10, Logger.xyz(1, 2, 3))])
    XCTAssertEqual(try phone.post(second, path: "/k3y/data").status, 200, "its connection stays")
    XCTAssertTrue(
      collector.wait(timeout: 5) { events in
        events.failures.contains { $0.message.contains("to make room") && !$0.isFatal }
      }, "\(collector.failures)")
    XCTAssertFalse(
      collector.failures.contains { $0.message.contains("closed on arrival") },
      "\(collector.failures)")
  }

  /// Whether at least `count` of `sockets` are closed by the server within 5 s (a failure
  /// bound: each close takes milliseconds).
  private static func waitUntil(closed count: Int, of sockets: [NetworkTestSocket]) -> Bool {
    let deadline = Date(timeIntervalSinceNow: 5)
    while deadline.timeIntervalSinceNow > 0 {
      if sockets.filter({ $0.waitForClose(timeout: 0.01) }).count >= count { return true }
    }
    return false
  }

  func testSlowReaderCannotStallTheReceiverOrStop() throws {
    let receiver = makeReceiver()
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    let port = try XCTUnwrap(receiver.listeningPort)
    // Pipelines requests and never reads the answers.
    let slow = try NetworkTestSocket.connect(port: port)
    slow.setReceiveBufferSize(1_024)
    let request = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
    try slow.send(Array([[UInt8]](repeating: request, count: 2_000).joined()), timeout: 1)
    try assertPhoneGetsThrough(receiver, collector, messageID: 0)
    let start = Date()
    subscription.cancel()
    let elapsed = Date().timeIntervalSince(start)
    XCTAssertLessThan(elapsed, LiveSourceHub.stopTimeout + 1, "stop is bounded")
    XCTAssertNil(receiver.listeningPort)
    XCTAssertThrowsError(try NetworkTestSocket.connect(port: port), "the port is closed")
    _ = slow
  }

  func testBrowserRequestsAndOtherContentTypesAreRefused() throws {
    let receiver = makeReceiver()
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let client = try NetworkTestHTTPClient(port: try XCTUnwrap(receiver.listeningPort))
    let body = Logger.body(messageID: 0, readings: [("gyroscope", 0, Logger.xyz(9, 9, 9))])
    // What a web page's fetch() sends: an Origin header (and text/plain to avoid a preflight).
    let fromPage = try client.post(
      body, extraHeaders: "Origin: http://evil.example\r\n", contentType: "text/plain;charset=UTF-8"
    )
    XCTAssertEqual(fromPage.status, 403)
    XCTAssertEqual(try client.post(body, contentType: "text/plain").status, 415)
    let preflight = try client.exchange(
      Array("OPTIONS / HTTP/1.1\r\nHost: x\r\nOrigin: http://evil.example\r\n\r\n".utf8))
    XCTAssertGreaterThanOrEqual(preflight.status, 400)
    for response in [fromPage, preflight] {
      XCTAssertNil(response.header("Access-Control-Allow-Origin"))
    }
    try assertPhoneGetsThrough(receiver, collector, messageID: 1)
    XCTAssertFalse(collector.samples.contains { $0.gyroscope?.x == 9 }, "refused bodies are unread")
  }

  func testTokenIsRequiredWhenConfigured() throws {
    let receiver = makeReceiver(token: "k3y")
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let client = try NetworkTestHTTPClient(port: try XCTUnwrap(receiver.listeningPort))
    let body = Logger.body(messageID: 0, readings: [("gyroscope", 0, Logger.xyz(9, 9, 9))])
    XCTAssertEqual(try client.post(body, path: "/").status, 404)
    XCTAssertEqual(try client.post(body, path: "/k3").status, 404)
    XCTAssertEqual(try client.post(body, path: "/k3yy").status, 404)
    try assertPhoneGetsThrough(receiver, collector, messageID: 0, path: "/k3y")
    try assertPhoneGetsThrough(receiver, collector, messageID: 1, path: "/k3y/push")
    XCTAssertFalse(collector.samples.contains { $0.gyroscope?.x == 9 })
  }

  func testFarFutureTimestampDoesNotBlockGenuineSamples() throws {
    let receiver = makeReceiver()
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let client = try NetworkTestHTTPClient(port: try XCTUnwrap(receiver.listeningPort))
    let yearMs = 365 * 86_400 * 1_000
    let messages = [
      Logger.body(messageID: 0, readings: [("gyroscope", 0, Logger.xyz(0, 0, 0))]),
      // One forged reading a year ahead among genuine ones.
      Logger.body(
        messageID: 1,
        readings: [
          ("gyroscope", 10, Logger.xyz(1, 0, 0)), ("gyroscope", yearMs, Logger.xyz(99, 0, 0)),
        ]),
      Logger.body(messageID: 2, readings: [("gyroscope", 20, Logger.xyz(2, 0, 0))]),
      Logger.body(messageID: 3, readings: [("gyroscope", 30, Logger.xyz(3, 0, 0))]),
    ]
    for message in messages { XCTAssertEqual(try client.post(message).status, 200) }
    XCTAssertTrue(collector.wait(timeout: 3) { $0.samples.count >= 4 }, "\(collector.all)")
    XCTAssertEqual(collector.samples.compactMap(\.gyroscope?.x), [0, 1, 2, 3])
    XCTAssertTrue(
      collector.wait(timeout: 3) { $0.failures.contains { $0.message.contains("far ahead") } })
    XCTAssertTrue(collector.failures.allSatisfy { !$0.isFatal })
  }

  func testSilentWebSocketPeerIsNoticedAndReconnected() throws {
    // Sends one reading, then neither reads (so never answers a ping) nor sends.
    let phone = try NetworkTestPhone(answersPings: false) { outbound, index in
      try await outbound.write(
        .text(
          NetworkSensorServerTests.message(
            "gyroscope", Int64(index + 1) * 1_000_000_000, [1, 0, 0])))
      try await Task.sleep(nanoseconds: 30_000_000_000)
    }
    defer { phone.stop() }
    let client = SensorServerClient(
      configuration: .init(
        host: "127.0.0.1", port: phone.port, reconnectDelay: 0.05, maximumSampleDelay: 0.05,
        clock: .phone, pingInterval: 0.2, idleTimeout: 0.5))
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 50, collector.handler)
    XCTAssertTrue(
      collector.wait(timeout: 6) { $0.samples.count >= 2 }, "reconnected: \(collector.all)")
    XCTAssertGreaterThanOrEqual(phone.connectionCount, 2)
    XCTAssertEqual(collector.failures.first?.kind, .disconnected)
    let start = Date()
    subscription.cancel()
    XCTAssertLessThan(Date().timeIntervalSince(start), LiveSourceHub.stopTimeout + 1)
  }

  func testRefusedAndPageRequestsCloseTheirConnections() throws {
    let receiver = makeReceiver(token: "k3y")
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let port = try XCTUnwrap(receiver.listeningPort)
    // One peer takes every connection slot with keep-alive requests to a wrong path, then
    // with requests for the page: each is answered and its connection closed.
    var peers = try (0..<16).map { _ in try NetworkTestHTTPClient(port: port) }
    for peer in peers {
      let answer = try peer.exchange(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
      XCTAssertEqual(answer.status, 404)
      XCTAssertEqual(answer.header("Connection"), "close")
      XCTAssertTrue(peer.socket.waitForClose(timeout: 3), "a refused request's connection closes")
    }
    try assertPhoneGetsThrough(receiver, collector, messageID: 0, path: "/k3y")
    peers = try (0..<4).map { _ in try NetworkTestHTTPClient(port: port) }
    for peer in peers {
      let page = try peer.exchange(Array("GET /k3y HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
      XCTAssertEqual(page.status, 200)
      XCTAssertTrue(peer.socket.waitForClose(timeout: 3), "the page's connection closes")
    }
    // The phone's own pushes keep theirs.
    let phone = try NetworkTestHTTPClient(port: port)
    for id in 1...3 {
      let body = Logger.body(messageID: id, readings: [("gyroscope", id * 10, Logger.xyz(1, 2, 3))])
      XCTAssertEqual(try phone.post(body, path: "/k3y").status, 200)
    }
    XCTAssertTrue(
      collector.wait(timeout: 3) {
        $0.failures.contains { $0.message.contains("10 request(s) so far were refused") }
      }, "\(collector.failures)")
    XCTAssertTrue(collector.failures.allSatisfy { !$0.isFatal })
  }

  func testABodyOfTinyContainersIsRefusedWithoutParsing() throws {
    let receiver = makeReceiver(maximumBodySize: 1 << 20)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let client = try NetworkTestHTTPClient(port: try XCTUnwrap(receiver.listeningPort))
    let unit = "{\"a\":[0]},"
    let junk =
      "{\"payload\":[" + String(repeating: unit, count: SensorLoggerBatch.maximumContainers) + "0]}"
    let answer = try client.post(junk, keepAlive: false)
    XCTAssertEqual(answer.status, 400)
    XCTAssertTrue(
      String(decoding: answer.body, as: UTF8.self).contains("JSON objects and arrays"),
      String(decoding: answer.body, as: UTF8.self))
    try assertPhoneGetsThrough(receiver, collector, messageID: 0)
  }
}
