// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// Collects a source's events and lets a test wait (with a short deadline) for a condition.
final class NetworkEventCollector: @unchecked Sendable {
  private let events = Locked<[SourceEvent]>([])
  private let condition = NSCondition()

  /// The handler to subscribe with.
  var handler: @Sendable (SourceEvent) -> Void {
    { [self] event in
      events.withLock { $0.append(event) }
      condition.lock()
      condition.broadcast()
      condition.unlock()
    }
  }

  /// Every event so far.
  var all: [SourceEvent] { events.withLock { $0 } }

  /// The samples so far.
  var samples: [MotionSample] {
    all.compactMap { if case .sample(let sample) = $0 { return sample } else { return nil } }
  }

  /// The failures so far.
  var failures: [SourceFailure] {
    all.compactMap { if case .failure(let failure) = $0 { return failure } else { return nil } }
  }

  /// Waits until `predicate` holds or `timeout` seconds pass; returns whether it holds.
  @discardableResult
  func wait(timeout: Double = 1.5, until predicate: (NetworkEventCollector) -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    condition.lock()
    defer { condition.unlock() }
    while !predicate(self) {
      if !condition.wait(until: deadline) { return predicate(self) }
    }
    return true
  }
}

/// Minimal HTTP/1.1 client for the tests: one request per connection unless reused.
final class NetworkTestHTTPClient {
  let socket: TCPSocket

  init(port: UInt16) throws {
    socket = try TCPSocket.connect(host: "127.0.0.1", port: port, timeout: 1)
  }

  /// Sends `request` bytes and reads one response.
  func exchange(_ request: [UInt8]) throws -> HTTPMessage {
    try socket.send(request)
    var buffer: [UInt8] = []
    while true {
      guard let bytes = try socket.receive(timeout: 1.5) else {
        throw SocketError("response timed out", code: 0)
      }
      buffer += bytes
      switch HTTPMessage.parse(
        buffer, isResponse: true, atEndOfStream: bytes.isEmpty, maximumBodySize: 1 << 20)
      {
      case .complete(let message, _): return message
      case .invalid(let reason): throw SocketError(reason, code: 0)
      case .incomplete:
        if bytes.isEmpty { throw SocketError("connection closed early", code: 0) }
      }
    }
  }

  /// POSTs a JSON body and returns the response.
  func post(_ body: String, path: String = "/data", keepAlive: Bool = true) throws -> HTTPMessage {
    let bytes = Array(body.utf8)
    var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    head += "Content-Length: \(bytes.count)\r\n"
    if !keepAlive { head += "Connection: close\r\n" }
    head += "\r\n"
    return try exchange(Array(head.utf8) + bytes)
  }
}

/// Asserts two vectors agree within `tolerance` per component.
func assertNetworkVectorsClose(
  _ actual: SIMD3<Double>?, _ expected: SIMD3<Double>, tolerance: Double, _ message: String = "",
  file: StaticString = #filePath, line: UInt = #line
) {
  guard let actual else {
    XCTFail("missing vector, expected \(expected) \(message)", file: file, line: line)
    return
  }
  let difference = actual - expected
  let error = max(abs(difference.x), abs(difference.y), abs(difference.z))
  XCTAssertLessThanOrEqual(
    error, tolerance, "\(actual) vs \(expected) \(message)", file: file, line: line)
}

/// Polls `condition` every few milliseconds until it holds or `timeout` seconds pass (for state
/// that changes without an event to wait on, such as a connection flag).
func networkEventually(timeout: Double = 1.5, _ condition: () -> Bool) -> Bool {
  let deadline = Date(timeIntervalSinceNow: timeout)
  while !condition() {
    if Date() > deadline { return false }
    Thread.sleep(forTimeInterval: 0.002)
  }
  return true
}
