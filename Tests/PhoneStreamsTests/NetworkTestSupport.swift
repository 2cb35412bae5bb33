// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import PhoneStreamDecoding
@testable import PhoneStreams

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

/// A response read by ``NetworkTestHTTPClient``.
struct NetworkTestResponse {
  var status: Int
  var headers: [(name: String, value: String)]
  var body: [UInt8]

  func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }
}

/// Minimal HTTP/1.1 client for the tests, on a raw socket (so tests can also misbehave): one
/// connection, reused unless closed. Responses must carry `Content-Length` (the receiver's do).
final class NetworkTestHTTPClient {
  let socket: NetworkTestSocket
  private var buffer: [UInt8] = []

  init(port: UInt16) throws {
    socket = try NetworkTestSocket.connect(port: port)
  }

  /// Sends `request` bytes and reads one response.
  func exchange(_ request: [UInt8]) throws -> NetworkTestResponse {
    try socket.send(request)
    return try readResponse()
  }

  /// Reads one response (within 3 s).
  func readResponse() throws -> NetworkTestResponse {
    let deadline = Date(timeIntervalSinceNow: 3)
    func fill() throws {
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0, let bytes = try socket.receive(timeout: remaining) else {
        throw NetworkTestError("response timed out")
      }
      if bytes.isEmpty { throw NetworkTestError("connection closed early") }
      buffer += bytes
    }
    var headEnd: Int?
    while headEnd == nil {
      headEnd = Self.find([13, 10, 13, 10], in: buffer)
      if headEnd == nil { try fill() }
    }
    let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst().split(separator: " ")
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
      throw NetworkTestError("bad status line in \(head)")
    }
    let headers = lines.compactMap { line -> (String, String)? in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      return (
        String(line[..<colon]),
        line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      )
    }
    let length = Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
    let bodyStart = headEnd! + 4
    while buffer.count < bodyStart + length { try fill() }
    let body = Array(buffer[bodyStart..<bodyStart + length])
    buffer.removeFirst(bodyStart + length)
    return NetworkTestResponse(status: status, headers: headers, body: body)
  }

  /// POSTs a JSON body and returns the response.
  func post(
    _ body: String, path: String = "/data", keepAlive: Bool = true,
    extraHeaders: String = "", contentType: String? = "application/json"
  ) throws -> NetworkTestResponse {
    let bytes = Array(body.utf8)
    var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if let contentType { head += "Content-Type: \(contentType)\r\n" }
    head += "Content-Length: \(bytes.count)\r\n" + extraHeaders
    if !keepAlive { head += "Connection: close\r\n" }
    head += "\r\n"
    return try exchange(Array(head.utf8) + bytes)
  }

  static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for start in 0...(haystack.count - needle.count)
    where haystack[start..<start + needle.count].elementsEqual(needle) {
      return start
    }
    return nil
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
