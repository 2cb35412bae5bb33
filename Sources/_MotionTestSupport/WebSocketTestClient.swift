// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A minimal WebSocket client for tests (RFC 6455 over a blocking TCP socket to an IPv4 address):
/// the upgrade handshake (with subprotocols and an Origin if asked), reading the server's messages
/// and sending text. It reads only when asked, so a test can hold a connection that never reads (a
/// stalled browser tab) next to a normal one.
package final class WebSocketTestClient {
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// A message from the server.
  package enum Message: Equatable {
    case text(String)
    case binary([UInt8])
  }

  private let descriptor: Int32
  private var buffer: [UInt8] = []
  /// The subprotocol the server chose (`Sec-WebSocket-Protocol` of its answer), if any.
  package private(set) var selectedSubprotocol: String?
  /// Messages larger than this are refused (the dashboard's frames are a few kilobytes).
  private static let maximumMessageSize = 16 << 20

  /// Connects to `url` (`ws://127.0.0.1:PORT/PATH?QUERY`) and completes the upgrade.
  ///
  /// - Parameters:
  ///   - receiveBufferBytes: the socket's receive buffer (`SO_RCVBUF`), set before connecting so
  ///     the TCP window stays small: a client that never reads then stalls the server quickly.
  ///   - timeout: for connecting and for each read, s.
  ///   - subprotocols: offered in `Sec-WebSocket-Protocol` (none: no header).
  ///   - origin: sent as `Origin` (as a browser would), or no header.
  package init(
    url: URL, receiveBufferBytes: Int32? = nil, timeout: Double = 10, subprotocols: [String] = [],
    origin: String? = nil
  ) throws {
    guard let host = url.host, let port = url.port, (1...65535).contains(port) else {
      throw Failure(description: "not a ws://IPv4:PORT URL: \(url)")
    }
    // inet_addr answers all ones (INADDR_NONE) for text that is not a dotted IPv4 address.
    let address = inet_addr(host)
    guard address != in_addr_t.max else {
      throw Failure(description: "not an IPv4 address: \(host)")
    }
    #if canImport(Glibc)
      descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
    if var size = receiveBufferBytes {
      setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var time = timeval()
    time.tv_sec = max(1, Int(min(timeout, 3600).rounded(.up)))
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    var socketAddress = sockaddr_in()
    socketAddress.sin_family = sa_family_t(AF_INET)
    socketAddress.sin_port = in_port_t(UInt16(port).bigEndian)
    socketAddress.sin_addr = in_addr(s_addr: address)
    let connected = withUnsafePointer(to: &socketAddress) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    // (On a throw from here on, deinit closes the socket.)
    guard connected == 0 else {
      throw Failure(description: "cannot connect to \(host):\(port): errno \(errno)")
    }
    let target = url.path.isEmpty ? "/" : url.path
    let request =
      "GET \(target)\(url.query.map { "?" + $0 } ?? "") HTTP/1.1\r\nHost: \(host):\(port)\r\n"
      + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
      + "Sec-WebSocket-Version: 13\r\n"
      + (subprotocols.isEmpty
        ? "" : "Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))\r\n")
      + (origin.map { "Origin: \($0)\r\n" } ?? "") + "\r\n"
    let bytes = Array(request.utf8)
    guard bytes.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == bytes.count
    else {
      throw Failure(description: "cannot send the upgrade request")
    }
    // The response head ends with an empty line; frames may follow in the same read.
    let terminator: [UInt8] = [13, 10, 13, 10]
    while true {
      if let end = Self.find(terminator, in: buffer) {
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + terminator.count)
        guard head.hasPrefix("HTTP/1.1 101") else {
          throw Failure(
            description: "upgrade refused: \(head.split(separator: "\r\n").first ?? "")")
        }
        for line in head.split(separator: "\r\n") {
          let parts = line.split(separator: ":", maxSplits: 1)
          if parts.count == 2, parts[0].lowercased() == "sec-websocket-protocol" {
            selectedSubprotocol = parts[1].trimmingCharacters(in: .whitespaces)
          }
        }
        return
      }
      guard buffer.count < 65536 else { throw Failure(description: "response head too long") }
      try fill()
    }
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
  }

  /// The next text message (continuation frames joined, pings answered, binary messages skipped).
  package func readText() throws -> String {
    while true {
      if case .text(let text) = try readMessage() { return text }
    }
  }

  /// The next text or binary message (continuation frames joined, pings answered).
  package func readMessage() throws -> Message {
    var message: [UInt8] = []
    var isText = false
    while true {
      let (isFinal, opcode, payload) = try readFrame()
      switch opcode {
      case 0x1:
        isText = true
        message = payload
      case 0x0:
        message += payload
      case 0x2:
        isText = false
        message = payload
      case 0x8:
        throw Failure(description: "the server closed the connection")
      case 0x9:
        // The server closes a connection that does not answer its pings.
        try sendControl(opcode: 0xA, payload: payload)
        continue
      default:
        continue  // pong
      }
      guard message.count <= Self.maximumMessageSize else {
        throw Failure(description: "message too large")
      }
      if isFinal {
        return isText ? .text(String(decoding: message, as: UTF8.self)) : .binary(message)
      }
    }
  }

  /// Sends a text message (one masked frame, at most 65 535 bytes).
  package func sendText(_ text: String) throws {
    let payload = Array(text.utf8)
    guard payload.count <= 65535 else {
      throw Failure(description: "text too long for this client")
    }
    let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
    let length: [UInt8] =
      payload.count < 126
      ? [0x80 | UInt8(payload.count)]
      : [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
    let frame =
      [0x81] + length + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    guard frame.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == frame.count
    else {
      throw Failure(description: "cannot send a text frame: errno \(errno)")
    }
  }

  /// Sends a control frame (at most 125 bytes); a client's frames are masked (RFC 6455 5.3).
  private func sendControl(opcode: UInt8, payload: [UInt8]) throws {
    guard payload.count <= 125 else { throw Failure(description: "control frame too long") }
    let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
    let frame =
      [0x80 | opcode, 0x80 | UInt8(payload.count)] + mask
      + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    guard frame.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == frame.count
    else {
      throw Failure(description: "cannot send a control frame: errno \(errno)")
    }
  }

  private func readFrame() throws -> (isFinal: Bool, opcode: UInt8, payload: [UInt8]) {
    try need(2)
    let isFinal = buffer[0] & 0x80 != 0
    let opcode = buffer[0] & 0x0f
    let masked = buffer[1] & 0x80 != 0
    var length = Int(buffer[1] & 0x7f)
    var offset = 2
    if length == 126 {
      try need(4)
      length = Int(buffer[2]) << 8 | Int(buffer[3])
      offset = 4
    } else if length == 127 {
      try need(10)
      let value = buffer[2..<10].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      guard value <= UInt64(Self.maximumMessageSize) else {
        throw Failure(description: "frame too large")
      }
      length = Int(value)
      offset = 10
    }
    guard !masked else { throw Failure(description: "a server frame must not be masked") }
    try need(offset + length)
    let payload = Array(buffer[offset..<(offset + length)])
    buffer.removeFirst(offset + length)
    return (isFinal, opcode, payload)
  }

  private func need(_ count: Int) throws {
    while buffer.count < count { try fill() }
  }

  private func fill() throws {
    var chunk = [UInt8](repeating: 0, count: 65536)
    let received = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
    guard received > 0 else {
      throw Failure(
        description: received == 0
          ? "connection closed" : "read failed or timed out: errno \(errno)")
    }
    buffer += chunk[..<received]
  }

  private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for start in 0...(haystack.count - needle.count)
    where haystack[start..<(start + needle.count)].elementsEqual(needle) {
      return start
    }
    return nil
  }
}
