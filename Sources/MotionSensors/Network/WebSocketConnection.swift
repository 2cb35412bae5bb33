// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The client side of a WebSocket connection (RFC 6455), over a blocking ``TCPSocket``.
///
/// Only what a sensor stream needs: the opening handshake, masked client frames, text and binary
/// messages (reassembled from fragments), ping → pong, and the closing handshake. No extensions
/// (no compression) are negotiated, so reserved bits must be clear.
final class WebSocketConnection {
  /// A complete message from the server.
  enum Message: Equatable {
    case text(String)
    case binary([UInt8])
    /// The server closed the connection, with its status code and reason if it sent them.
    case close(code: UInt16?, reason: String)
  }

  /// The GUID that RFC 6455 §1.3 appends to the key before hashing.
  static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

  let socket: TCPSocket
  /// The largest accepted message in bytes; default 16 MiB.
  var maximumMessageSize = 16 << 20
  private var buffer: [UInt8]
  private var fragments: [UInt8] = []
  private var fragmentOpcode: UInt8?
  private var hasSentClose = false

  private init(socket: TCPSocket, leftover: [UInt8]) {
    self.socket = socket
    self.buffer = leftover
  }

  /// The `Sec-WebSocket-Accept` value a server must answer to `key`.
  static func acceptValue(forKey key: String) -> String {
    Data(SHA1.digest(Array((key + acceptGUID).utf8))).base64EncodedString()
  }

  /// Connects and performs the opening handshake for `path` (which includes any query).
  ///
  /// - Throws: ``SocketError`` for network failures, ``SourceFailure`` when the server does not
  ///   agree to the upgrade (with its status line and body in the message).
  static func connect(host: String, port: UInt16, path: String, timeout: Double) throws
    -> WebSocketConnection
  {
    let socket = try TCPSocket.connect(host: host, port: port, timeout: timeout)
    var keyBytes = [UInt8](repeating: 0, count: 16)
    var generator = SystemRandomNumberGenerator()
    for index in keyBytes.indices { keyBytes[index] = generator.next() }
    let key = Data(keyBytes).base64EncodedString()
    let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    let request =
      "GET \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
    try socket.send(request)

    var received: [UInt8] = []
    let deadline = phoneStreamUptime() + timeout
    var headerEnd: Int?
    while headerEnd == nil {
      let remaining = deadline - phoneStreamUptime()
      guard remaining > 0, let bytes = try socket.receive(timeout: remaining) else {
        throw SourceFailure(.disconnected, "WebSocket handshake with \(hostHeader) timed out")
      }
      guard !bytes.isEmpty else {
        throw SourceFailure(
          .disconnected, "\(hostHeader) closed the connection during the WebSocket handshake")
      }
      received += bytes
      headerEnd = HTTPMessage.find([13, 10, 13, 10], in: received, from: 0)
      if received.count > 65_536 && headerEnd == nil {
        throw SourceFailure(.malformedData, "\(hostHeader) sent an oversized WebSocket handshake")
      }
    }
    let end = headerEnd! + 4
    guard
      case .complete(let response, _) = HTTPMessage.parse(
        Array(received[0..<end]), isResponse: true, atEndOfStream: true, maximumBodySize: 0)
    else {
      throw SourceFailure(.malformedData, "\(hostHeader) did not answer with HTTP")
    }
    guard response.status == 101 else {
      // Read a little of the body: servers explain refusals there.
      var body = Array(received[end...])
      if let more = try? socket.receive(timeout: 0.2) { body += more }
      let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines)
      throw SourceFailure(
        .other,
        "\(hostHeader) refused the WebSocket upgrade for \(path): HTTP \(response.status)"
          + (text.isEmpty ? "" : " (\(text))"))
    }
    guard response.header("Sec-WebSocket-Accept") == acceptValue(forKey: key) else {
      throw SourceFailure(
        .malformedData,
        "\(hostHeader) answered the WebSocket handshake with a wrong Sec-WebSocket-Accept")
    }
    return WebSocketConnection(socket: socket, leftover: Array(received[end...]))
  }

  /// Reads what has arrived (call when the socket is readable, or after connecting to drain bytes
  /// that came with the handshake) and returns the complete messages. Pings are answered here.
  ///
  /// - Throws: ``SourceFailure`` on a protocol violation; the connection should then be closed.
  func readMessages(receiving: Bool = true) throws -> [Message] {
    if receiving {
      let bytes = try socket.receive()
      if bytes.isEmpty {
        return [.close(code: nil, reason: "connection closed without a close frame")]
      }
      buffer += bytes
    }
    var messages: [Message] = []
    var offset = 0
    defer { buffer.removeFirst(offset) }
    while let frame = try parseFrame(at: offset) {
      offset = frame.end
      if let message = try handle(
        opcode: frame.opcode, isFinal: frame.isFinal, payload: frame.payload)
      {
        messages.append(message)
        if case .close = message { break }
      }
    }
    return messages
  }

  private func parseFrame(at start: Int) throws -> (
    opcode: UInt8, isFinal: Bool, payload: [UInt8], end: Int
  )? {
    guard buffer.count - start >= 2 else { return nil }
    let first = buffer[start]
    let second = buffer[start + 1]
    guard first & 0x70 == 0 else {
      throw protocolError("reserved bits set (no extension was negotiated)")
    }
    var index = start + 2
    var length = UInt64(second & 0x7F)
    if length == 126 {
      guard buffer.count - index >= 2 else { return nil }
      length = UInt64(buffer[index]) << 8 | UInt64(buffer[index + 1])
      index += 2
    } else if length == 127 {
      guard buffer.count - index >= 8 else { return nil }
      length = buffer[index..<index + 8].reduce(0) { $0 << 8 | UInt64($1) }
      index += 8
    }
    guard length <= UInt64(maximumMessageSize) else {
      throw protocolError("frame of \(length) bytes exceeds \(maximumMessageSize)")
    }
    var mask: [UInt8]?
    if second & 0x80 != 0 {
      guard buffer.count - index >= 4 else { return nil }
      mask = Array(buffer[index..<index + 4])
      index += 4
    }
    let count = Int(length)
    guard buffer.count - index >= count else { return nil }
    var payload = Array(buffer[index..<index + count])
    if let mask {
      for i in payload.indices { payload[i] ^= mask[i & 3] }
    }
    return (first & 0x0F, first & 0x80 != 0, payload, index + count)
  }

  private func handle(opcode: UInt8, isFinal: Bool, payload: [UInt8]) throws -> Message? {
    if opcode >= 0x8 {
      guard isFinal, payload.count <= 125 else {
        throw protocolError("fragmented or oversized control frame")
      }
    }
    switch opcode {
    case 0x0:
      guard let started = fragmentOpcode else {
        throw protocolError("continuation frame without a message")
      }
      guard fragments.count + payload.count <= maximumMessageSize else {
        throw protocolError("message exceeds \(maximumMessageSize) bytes")
      }
      fragments += payload
      guard isFinal else { return nil }
      let whole = fragments
      fragments = []
      fragmentOpcode = nil
      return try dataMessage(opcode: started, payload: whole)
    case 0x1, 0x2:
      guard fragmentOpcode == nil else {
        throw protocolError("new message inside a fragmented one")
      }
      if isFinal { return try dataMessage(opcode: opcode, payload: payload) }
      fragmentOpcode = opcode
      fragments = payload
      return nil
    case 0x8:
      var code: UInt16?
      var reason = ""
      if payload.count >= 2 {
        code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        reason = String(decoding: payload[2...], as: UTF8.self)
      }
      try? sendFrame(opcode: 0x8, payload: Array(payload.prefix(2)))
      hasSentClose = true
      return .close(code: code, reason: reason)
    case 0x9:
      try sendFrame(opcode: 0xA, payload: payload)
      return nil
    case 0xA:
      return nil
    default:
      throw protocolError("unknown opcode \(opcode)")
    }
  }

  private func dataMessage(opcode: UInt8, payload: [UInt8]) throws -> Message {
    guard opcode == 0x1 else { return .binary(payload) }
    guard let text = String(validating: payload, as: UTF8.self) else {
      throw protocolError("text message is not valid UTF-8")
    }
    return .text(text)
  }

  private func protocolError(_ reason: String) -> SourceFailure {
    SourceFailure(.malformedData, "WebSocket protocol error: \(reason)")
  }

  /// Sends one final frame, masked with a fresh random key as RFC 6455 requires of clients.
  func sendFrame(opcode: UInt8, payload: [UInt8]) throws {
    var frame: [UInt8] = [0x80 | opcode]
    switch payload.count {
    case 0..<126:
      frame.append(0x80 | UInt8(payload.count))
    case 126...0xFFFF:
      frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    default:
      frame.append(0x80 | 127)
      for shift in stride(from: 56, through: 0, by: -8) {
        frame.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift)))
      }
    }
    var generator = SystemRandomNumberGenerator()
    let mask = (0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) }
    frame += mask
    frame += payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
    try socket.send(frame)
  }

  /// Sends a text message.
  func send(text: String) throws {
    try sendFrame(opcode: 0x1, payload: Array(text.utf8))
  }

  /// Starts the closing handshake (once) and closes the socket.
  func close(code: UInt16 = 1000) {
    if !hasSentClose {
      hasSentClose = true
      try? sendFrame(opcode: 0x8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)])
    }
    socket.close()
  }
}
