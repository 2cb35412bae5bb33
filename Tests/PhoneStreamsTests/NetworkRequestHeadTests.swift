// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import PhoneStreamDecoding
@testable import PhoneStreams

/// Request heads beyond the Sensor Logger receiver's limits (16 KiB, 100 header fields): answered
/// 431 and closed soon after, reported, and the phone is served throughout.
///
/// Before the limits were ours (2026-11-26), the same requests got Hummingbird's empty 400 and
/// their connections stayed open, read and discarded, until the idle timeout (10 s) while the
/// peer went on sending.
final class NetworkRequestHeadTests: XCTestCase {
  typealias Logger = NetworkSensorLoggerTests

  private func makeReceiver() -> SensorLoggerReceiver {
    SensorLoggerReceiver(
      configuration: .init(
        bindAddress: "127.0.0.1", port: 0, platform: .android, messageReorderWindow: 0.2,
        sampleHoldTime: 0.02, maximumSampleDelay: 0.05, clock: .phone))
  }

  private func push(_ messageID: Int) -> String {
    Logger.body(
      messageID: messageID, readings: [("gyroscope", messageID * 10, Logger.xyz(1, 2, 3))])
  }

  /// Sends `request` whole on a new connection, reads the answer, then goes on sending: returns
  /// the answer and how long the receiver kept the connection after it.
  private func sendOversized(
    _ request: String, port: UInt16, file: StaticString = #filePath, line: UInt = #line
  ) throws -> (response: NetworkTestResponse, closedAfter: Double?) {
    let client = try NetworkTestHTTPClient(port: port)
    let bytes = Array(request.utf8)
    // The receiver reads (and discards) everything, so the whole request goes out.
    XCTAssertEqual(try client.socket.send(bytes, timeout: 10), bytes.count, file: file, line: line)
    let response = try client.readResponse()
    let start = Date()
    while Date().timeIntervalSince(start) < 5 {
      do { try client.socket.send([UInt8](repeating: 0x61, count: 512), timeout: 1) } catch {
        return (response, Date().timeIntervalSince(start))
      }
      Thread.sleep(forTimeInterval: 0.05)
    }
    return (response, nil)
  }

  func testOversizedRequestHeadsAreAnswered431AndThePhoneIsStillServed() throws {
    let receiver = makeReceiver()
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let port = try XCTUnwrap(receiver.listeningPort)
    // A phone on a keep-alive connection opened before the attacks.
    let phone = try NetworkTestHTTPClient(port: port)
    XCTAssertEqual(try phone.post(push(0)).status, 200)

    let megabyte = String(repeating: "a", count: 1 << 20)
    var fields = ""
    for index in 0..<20_000 { fields += "X-\(index): v\r\n" }
    let attacks = [
      ("a 1 MiB header line", "POST /data HTTP/1.1\r\nHost: x\r\nX-Filler: \(megabyte)\r\n\r\n"),
      ("20 000 header fields", "POST /data HTTP/1.1\r\nHost: x\r\n\(fields)\r\n"),
      ("a 1 MiB request line", "GET /\(megabyte) HTTP/1.1\r\nHost: x\r\n\r\n"),
    ]
    for (name, request) in attacks {
      let (response, closedAfter) = try sendOversized(request, port: port)
      XCTAssertEqual(response.status, 431, name)
      XCTAssertEqual(response.header("Connection"), "close", name)
      XCTAssertTrue(
        String(decoding: response.body, as: UTF8.self).contains("16 KiB or 100 fields"), name)
      let closed = try XCTUnwrap(closedAfter, "\(name): still open 5 s after the answer")
      XCTAssertLessThan(closed, 3, "\(name): closed after the linger, not the idle timeout")
      XCTAssertEqual(try phone.post(push(1)).status, 200, "the phone is served after \(name)")
    }
    XCTAssertTrue(
      collector.wait(timeout: 3) {
        $0.failures.contains {
          $0.message.contains("1 request(s) so far had a request line and headers beyond 16 KiB")
            && !$0.isFatal
        }
      }, "\(collector.failures)")

    // Within the limits: 90 header fields and a 15 KiB head are a normal request.
    var allowed = ""
    for index in 0..<88 { allowed += "X-\(index): \(String(repeating: "v", count: 150))\r\n" }
    XCTAssertLessThan(allowed.utf8.count, 15 << 10)
    let client = try NetworkTestHTTPClient(port: port)
    XCTAssertEqual(try client.post(push(2), extraHeaders: allowed).status, 200)
    XCTAssertEqual(try client.post(push(3)).status, 200, "and its connection stays usable")
    XCTAssertTrue(collector.wait(timeout: 3) { $0.samples.count >= 4 }, "\(collector.all)")
  }

  /// A malformed head (not an oversized one) keeps Hummingbird's 400, and its connection is also
  /// closed after the linger while the peer goes on sending.
  func testMalformedHeadIsAnswered400AndClosedSoon() throws {
    let receiver = makeReceiver()
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let port = try XCTUnwrap(receiver.listeningPort)
    let (response, closedAfter) = try sendOversized(
      "POST /data HTTP/1.1\r\nHost: x\r\nBad Header Name: v\r\n\r\n", port: port)
    XCTAssertEqual(response.status, 400)
    XCTAssertLessThan(try XCTUnwrap(closedAfter, "still open 5 s after the answer"), 3)
    XCTAssertFalse(collector.failures.contains { $0.message.contains("431") })
    let phone = try NetworkTestHTTPClient(port: port)
    XCTAssertEqual(try phone.post(push(0)).status, 200)
  }
}
