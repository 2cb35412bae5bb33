// SPDX-License-Identifier: Apache-2.0

extension TCPSocket {
  /// Performs one HTTP/1.1 GET on a fresh, non-keep-alive connection and returns the response.
  ///
  /// phyphox's built-in server is single-threaded and mishandles keep-alive, so every request
  /// gets its own connection (`Connection: close`).
  ///
  /// - Throws: ``SocketError`` for network failures and timeouts, ``SourceFailure`` when the
  ///   answer is not HTTP.
  static func httpGet(
    host: String, port: UInt16, path: String, timeout: Double, maximumBodySize: Int = 16 << 20
  ) throws -> HTTPMessage {
    let socket = try TCPSocket.connect(host: host, port: port, timeout: timeout)
    defer { socket.close() }
    let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    try socket.send(
      "GET \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    )
    var buffer: [UInt8] = []
    let deadline = phoneStreamUptime() + timeout
    while true {
      let remaining = deadline - phoneStreamUptime()
      guard remaining > 0, let bytes = try socket.receive(timeout: remaining) else {
        throw SocketError("no answer from \(hostHeader) within \(timeout) s", code: 0)
      }
      buffer += bytes
      switch HTTPMessage.parse(
        buffer, isResponse: true, atEndOfStream: bytes.isEmpty, maximumBodySize: maximumBodySize)
      {
      case .complete(let response, _):
        return response
      case .invalid(let reason):
        throw SourceFailure(
          .malformedData, "\(hostHeader) sent an invalid HTTP response: \(reason)")
      case .incomplete:
        if bytes.isEmpty {
          throw SocketError(
            "\(hostHeader) closed the connection before the response was complete", code: 0)
        }
      }
    }
  }
}
