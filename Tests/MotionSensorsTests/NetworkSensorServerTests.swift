// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// A one-connection WebSocket server for the tests, speaking just enough RFC 6455.
final class NetworkTestWebSocketServer: @unchecked Sendable {
  let listener: TCPSocket
  private(set) var connection: TCPSocket?
  private(set) var requestTarget = ""
  private var buffer: [UInt8] = []

  init() throws {
    listener = try TCPSocket.listen(host: "127.0.0.1", port: 0)
  }

  var port: UInt16 { listener.localPort }

  /// Accepts the client and answers its handshake (`accept` overrides the computed key answer).
  func acceptHandshake(accept: String? = nil) throws {
    guard listener.wait(for: Int16(POLLIN), timeout: 1.5) else {
      throw SocketError("no client", code: 0)
    }
    let socket = try listener.accept()
    connection = socket
    buffer = []
    while HTTPMessage.find([13, 10, 13, 10], in: buffer, from: 0) == nil {
      guard let bytes = try socket.receive(timeout: 1.5), !bytes.isEmpty else {
        throw SocketError("no handshake", code: 0)
      }
      buffer += bytes
    }
    let end = HTTPMessage.find([13, 10, 13, 10], in: buffer, from: 0)! + 4
    guard
      case .complete(let request, _) = HTTPMessage.parse(
        Array(buffer[..<end]), isResponse: false, maximumBodySize: 0)
    else { throw SocketError("bad handshake", code: 0) }
    buffer.removeFirst(end)
    requestTarget = request.target
    let key = request.header("Sec-WebSocket-Key") ?? ""
    try socket.send(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: \(accept ?? WebSocketConnection.acceptValue(forKey: key))\r\n\r\n")
  }

  /// A server frame (unmasked unless `mask` is given).
  static func frame(opcode: UInt8, payload: [UInt8], final: Bool = true, mask: [UInt8]? = nil)
    -> [UInt8]
  {
    var bytes: [UInt8] = [(final ? 0x80 : 0) | opcode]
    let maskBit: UInt8 = mask == nil ? 0 : 0x80
    if payload.count < 126 {
      bytes.append(maskBit | UInt8(payload.count))
    } else {
      bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    }
    if let mask {
      bytes += mask
      bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    } else {
      bytes += payload
    }
    return bytes
  }

  func send(_ bytes: [UInt8]) throws {
    try connection!.send(bytes)
  }

  func sendText(_ text: String) throws {
    try send(Self.frame(opcode: 1, payload: Array(text.utf8)))
  }

  /// Reads one client frame; checks that it is masked (RFC 6455 §5.3) and returns it unmasked.
  func readClientFrame() throws -> (opcode: UInt8, payload: [UInt8], masked: Bool)? {
    while true {
      if buffer.count >= 2 {
        let length = Int(buffer[1] & 0x7F)  // the client only sends short frames in these tests
        let masked = buffer[1] & 0x80 != 0
        let headerLength = 2 + (masked ? 4 : 0)
        if buffer.count >= headerLength + length {
          var payload = Array(buffer[headerLength..<headerLength + length])
          if masked {
            let mask = Array(buffer[2..<6])
            for i in payload.indices { payload[i] ^= mask[i % 4] }
          }
          let opcode = buffer[0] & 0x0F
          buffer.removeFirst(headerLength + length)
          return (opcode, payload, masked)
        }
      }
      guard let bytes = try connection!.receive(timeout: 1.5) else { return nil }
      if bytes.isEmpty { return nil }
      buffer += bytes
    }
  }

  func close() {
    connection?.close()
    listener.close()
  }
}

/// The SensorServer WebSocket client against a loopback server.
final class NetworkSensorServerTests: XCTestCase {
  static func message(_ type: String, _ timestamp: Int64, _ values: [Double]) -> String {
    "{\"type\":\"android.sensor.\(type)\",\"accuracy\":3,\"timestamp\":\(timestamp),\"values\":["
      + values.map { "\($0)" }.joined(separator: ",") + "]}"
  }

  func testSHA1AndHandshakeAcceptMatchPublishedVectors() {
    let hex = SHA1.digest(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
    XCTAssertEqual(hex, "a9993e364706816aba3e25717850c26c9cd0d89d")  // FIPS 180 example
    let empty = SHA1.digest([]).map { String(format: "%02x", $0) }.joined()
    XCTAssertEqual(empty, "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    let long = SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
    XCTAssertEqual(
      long.map { String(format: "%02x", $0) }.joined(), "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    // RFC 6455 §1.3 example.
    XCTAssertEqual(
      WebSocketConnection.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ=="),
      "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
  }

  func testFramesBecomeOrderedSamplesAndCloseCodesAreExplained() throws {
    let server = try NetworkTestWebSocketServer()
    defer { server.close() }
    let client = SensorServerClient(
      configuration: .init(
        host: "127.0.0.1", port: server.port, reconnectDelay: 5, sampleHoldTime: 0.05,
        maximumSampleDelay: 0.1, clock: .phone))
    XCTAssertEqual(client.availableSensors, .nineAxis)
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 50, collector.handler)
    defer { subscription.cancel() }
    try server.acceptHandshake()
    XCTAssertEqual(
      server.requestTarget,
      "/sensors/connect?types=%5B%22android.sensor.accelerometer%22%2C%22android.sensor.gyroscope%22%2C%22android.sensor.magnetic_field%22%5D"
    )

    let base: Int64 = 3_925_657_519_043_709  // boot-relative ns (~45 days of uptime)
    try server.sendText(
      Self.message("accelerometer", base + 20_000_000, [0.31892395, -0.97802734, 10.049896]))
    // Earlier than the accelerometer event: must come out first.
    try server.sendText(Self.message("gyroscope", base, [0.01, -0.02, 0.03]))
    // A fragmented magnetometer message with a ping between the fragments.
    let fragmented = Array(
      Self.message("magnetic_field", base + 10_000_000, [22.5, -3.25, -41]).utf8)
    try server.send(
      NetworkTestWebSocketServer.frame(opcode: 1, payload: Array(fragmented[..<15]), final: false))
    try server.send(NetworkTestWebSocketServer.frame(opcode: 9, payload: Array("hi".utf8)))
    try server.send(NetworkTestWebSocketServer.frame(opcode: 0, payload: Array(fragmented[15...])))
    // A masked server frame (not allowed for servers, but tolerated) with a pressure reading the
    // client did not ask for by default: it is still mapped.
    try server.send(
      NetworkTestWebSocketServer.frame(
        opcode: 1, payload: Array(Self.message("pressure", base + 30_000_000, [1013.25]).utf8),
        mask: [1, 2, 3, 4]))

    let pong = try XCTUnwrap(server.readClientFrame())
    XCTAssertEqual(pong.opcode, 0xA)
    XCTAssertTrue(pong.masked, "client frames must be masked")
    XCTAssertEqual(pong.payload, Array("hi".utf8))

    XCTAssertTrue(collector.wait { $0.samples.count >= 4 }, "got \(collector.all)")
    let samples = collector.samples
    XCTAssertEqual(samples.map(\.timestamp), samples.map(\.timestamp).sorted())
    XCTAssertEqual(samples[0].timestamp, 3_925_657.519_043_709, accuracy: 1e-9)
    assertNetworkVectorsClose(samples[0].gyroscope, SIMD3(0.01, -0.02, 0.03), tolerance: 0)
    assertNetworkVectorsClose(samples[1].magnetometer, SIMD3(22.5, -3.25, -41), tolerance: 0)
    assertNetworkVectorsClose(
      samples[2].accelerometer, SIMD3(0.31892395, -0.97802734, 10.049896), tolerance: 0)
    XCTAssertEqual(try XCTUnwrap(samples[3].pressure), 101.325, accuracy: 1e-12)
    XCTAssertTrue(client.isConnected)

    try server.send(
      NetworkTestWebSocketServer.frame(opcode: 8, payload: [0x0F, 0xA5] + Array("bye".utf8)))  // 4005
    let closeReply = try XCTUnwrap(server.readClientFrame())
    XCTAssertEqual(closeReply.opcode, 8)
    XCTAssertEqual(closeReply.payload, [0x0F, 0xA5])
    XCTAssertTrue(collector.wait { !$0.failures.isEmpty })
    let failure = try XCTUnwrap(collector.failures.first)
    XCTAssertEqual(failure.kind, .disconnected)
    XCTAssertTrue(failure.message.contains("closed by the user [4005] (bye)"), failure.message)
  }

  func testMalformedMessagesAreReportedAndTheStreamContinues() throws {
    let server = try NetworkTestWebSocketServer()
    defer { server.close() }
    let client = SensorServerClient(
      configuration: .init(host: "127.0.0.1", port: server.port, reconnectDelay: 5))
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 50, collector.handler)
    defer { subscription.cancel() }
    try server.acceptHandshake()
    try server.sendText("not json")
    try server.sendText("{\"type\":\"android.sensor.gyroscope\",\"timestamp\":5,\"values\":[1,2]}")
    try server.sendText("{\"type\":\"android.sensor.gyroscope\",\"values\":[1,2,3]}")
    try server.sendText("{\"type\":\"android.sensor.light\",\"timestamp\":7,\"values\":[300]}")  // ignored
    try server.sendText(Self.message("gyroscope", 9, [1, 2, 3]))
    XCTAssertTrue(
      collector.wait { $0.samples.count >= 1 && $0.failures.count >= 3 }, "\(collector.all)")
    XCTAssertEqual(collector.samples.count, 1)
    let messages = collector.failures.map(\.message)
    XCTAssertTrue(messages[0].contains("not a JSON object"), messages[0])
    XCTAssertTrue(messages[1].contains("2 values, expected 3"), messages[1])
    XCTAssertTrue(messages[2].contains("no integer \"timestamp\""), messages[2])
  }

  func testProtocolViolationAndBadHandshakeAreFailuresNotCrashes() throws {
    let server = try NetworkTestWebSocketServer()
    defer { server.close() }
    let client = SensorServerClient(
      configuration: .init(host: "127.0.0.1", port: server.port, reconnectDelay: 5))
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 50, collector.handler)
    defer { subscription.cancel() }
    try server.acceptHandshake(accept: "wrong")
    XCTAssertTrue(collector.wait { !$0.failures.isEmpty })
    XCTAssertTrue(
      collector.failures[0].message.contains("Sec-WebSocket-Accept"), collector.failures[0].message)

    let second = try NetworkTestWebSocketServer()
    defer { second.close() }
    let other = SensorServerClient(
      configuration: .init(host: "127.0.0.1", port: second.port, reconnectDelay: 5))
    let otherCollector = NetworkEventCollector()
    let otherSubscription = other.subscribe(requestedSampleRate: 50, otherCollector.handler)
    defer { otherSubscription.cancel() }
    try second.acceptHandshake()
    try second.send([0xC1, 0x00])  // RSV1 set without a negotiated extension
    XCTAssertTrue(otherCollector.wait { $0.failures.count >= 2 })
    XCTAssertTrue(
      otherCollector.failures[0].message.contains("reserved bits"), "\(otherCollector.failures)")
    XCTAssertEqual(otherCollector.failures[1].kind, .disconnected)
  }

  func testCancelClosesTheConnection() throws {
    let server = try NetworkTestWebSocketServer()
    defer { server.close() }
    let client = SensorServerClient(configuration: .init(host: "127.0.0.1", port: server.port))
    let subscription = client.subscribe(requestedSampleRate: 50) { _ in }
    try server.acceptHandshake()
    XCTAssertTrue(networkEventually { client.isConnected })
    subscription.cancel()
    XCTAssertFalse(client.isConnected)
    let close = try XCTUnwrap(server.readClientFrame(), "expected a close frame")
    XCTAssertEqual(close.opcode, 8)
    XCTAssertEqual(close.payload, [0x03, 0xE8])  // 1000, normal closure
    XCTAssertNil(try server.readClientFrame(), "socket closed after the close frame")
  }

  func testReconnectsAfterTheServerGoesAway() throws {
    let server = try NetworkTestWebSocketServer()
    defer { server.close() }
    let client = SensorServerClient(
      configuration: .init(
        host: "127.0.0.1", port: server.port, reconnectDelay: 0.05, maximumSampleDelay: 0.05,
        clock: .phone))
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 50, collector.handler)
    defer { subscription.cancel() }
    try server.acceptHandshake()
    try server.sendText(Self.message("gyroscope", 1_000_000_000, [1, 0, 0]))
    XCTAssertTrue(collector.wait { $0.samples.count >= 1 })
    server.connection?.close()  // The app was stopped without a close frame.
    XCTAssertTrue(collector.wait { !$0.failures.isEmpty })
    XCTAssertEqual(collector.failures.first?.kind, .disconnected)
    try server.acceptHandshake()
    try server.sendText(Self.message("gyroscope", 2_000_000_000, [2, 0, 0]))
    XCTAssertTrue(collector.wait { $0.samples.count >= 2 }, "\(collector.all)")
    XCTAssertEqual(collector.samples.map(\.timestamp), [1, 2])
    // The phone rebooted: its boot clock starts again near zero; timestamps keep increasing.
    server.connection?.close()
    XCTAssertTrue(collector.wait { $0.failures.count >= 2 })
    try server.acceptHandshake()
    try server.sendText(Self.message("gyroscope", 500_000_000, [3, 0, 0]))
    try server.sendText(Self.message("gyroscope", 600_000_000, [4, 0, 0]))
    XCTAssertTrue(collector.wait { $0.samples.count >= 4 }, "\(collector.all)")
    let times = collector.samples.map(\.timestamp)
    XCTAssertEqual(times[2], 2, accuracy: 1e-12)
    XCTAssertEqual(times[3], 2.1, accuracy: 1e-12)
  }

  func testUnreachablePhoneIsReportedAsDisconnected() throws {
    // A port that nobody listens on: bind one, note it, close it.
    let probe = try TCPSocket.listen(host: "127.0.0.1", port: 0)
    let port = probe.localPort
    probe.close()
    let client = SensorServerClient(
      configuration: .init(host: "127.0.0.1", port: port, connectTimeout: 0.5, reconnectDelay: 5))
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 50, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait { !$0.failures.isEmpty })
    XCTAssertEqual(collector.failures.first?.kind, .disconnected)
    XCTAssertTrue(collector.failures.first?.message.contains("127.0.0.1") ?? false)
  }
}
