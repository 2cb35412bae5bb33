// SPDX-License-Identifier: Apache-2.0

/// A parsed HTTP/1.1 request or response: just what the phone-stream receivers need.
struct HTTPMessage: Sendable {
  /// The request method (`POST`), or the empty string for a response.
  var method = ""
  /// The request target (`/data?x=1`), or the empty string for a response.
  var target = ""
  /// The status code of a response (0 for a request).
  var status = 0
  /// `HTTP/1.1` or `HTTP/1.0`.
  var version = "HTTP/1.1"
  /// Header fields in order, names as sent.
  var headers: [(name: String, value: String)] = []
  /// The body, de-chunked.
  var body: [UInt8] = []

  /// The first header named `name` (case-insensitive).
  func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }

  /// Whether the connection should close after this message.
  var wantsClose: Bool {
    let connection = header("Connection")?.lowercased() ?? ""
    return version == "HTTP/1.0" ? !connection.contains("keep-alive") : connection.contains("close")
  }

  /// The outcome of trying to parse a message from the bytes received so far.
  enum ParseResult {
    /// More bytes are needed. `headersComplete` tells whether the header block has arrived (a
    /// server then answers `Expect: 100-continue`).
    case incomplete(headersComplete: Bool, partial: HTTPMessage?)
    /// A whole message, which used the first `consumed` bytes.
    case complete(HTTPMessage, consumed: Int)
    /// The bytes are not HTTP; the reason is for people.
    case invalid(String)
  }

  /// Parses one message from the front of `buffer`.
  ///
  /// - Parameters:
  ///   - isResponse: parse a status line instead of a request line.
  ///   - atEndOfStream: the peer has closed; a response without a length ends here.
  ///   - maximumBodySize: larger bodies are rejected (a receiver must not buffer without bound).
  static func parse(
    _ buffer: [UInt8], isResponse: Bool, atEndOfStream: Bool = false, maximumBodySize: Int
  ) -> ParseResult {
    guard let headerEnd = find([13, 10, 13, 10], in: buffer, from: 0) else {
      if buffer.count > 65_536 { return .invalid("HTTP header block larger than 64 KiB") }
      return .incomplete(headersComplete: false, partial: nil)
    }
    guard let headerText = String(bytes: buffer[0..<headerEnd], encoding: .utf8) else {
      return .invalid("HTTP header is not UTF-8")
    }
    var lines = headerText.components(separatedBy: "\r\n")
    let startLine = lines.removeFirst()
    var message = HTTPMessage()
    let parts = startLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
    if isResponse {
      guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
        return .invalid("not an HTTP response: \(startLine.prefix(80))")
      }
      message.version = String(parts[0])
      message.status = status
    } else {
      guard parts.count == 3, parts[2].hasPrefix("HTTP/") else {
        return .invalid("not an HTTP request: \(startLine.prefix(80))")
      }
      message.method = String(parts[0]).uppercased()
      message.target = String(parts[1])
      message.version = String(parts[2])
    }
    for line in lines where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else {
        return .invalid("malformed header: \(line.prefix(80))")
      }
      message.headers.append(
        (
          String(line[..<colon]).trimmingCharacters(in: .whitespaces),
          String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        ))
    }
    let bodyStart = headerEnd + 4

    if message.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
      var cursor = bodyStart
      var body: [UInt8] = []
      while true {
        guard let lineEnd = find([13, 10], in: buffer, from: cursor) else {
          return .incomplete(headersComplete: true, partial: message)
        }
        let sizeText =
          String(decoding: buffer[cursor..<lineEnd], as: UTF8.self)
          .split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard let size = Int(sizeText, radix: 16), size >= 0 else {
          return .invalid("malformed chunk size: \(sizeText.prefix(20))")
        }
        guard body.count + size <= maximumBodySize else {
          return .invalid("HTTP body larger than \(maximumBodySize) bytes")
        }
        cursor = lineEnd + 2
        if size == 0 {
          // Skip optional trailer fields up to the empty line.
          while true {
            guard let trailerEnd = find([13, 10], in: buffer, from: cursor) else {
              return .incomplete(headersComplete: true, partial: message)
            }
            let isEmpty = trailerEnd == cursor
            cursor = trailerEnd + 2
            if isEmpty { break }
          }
          message.body = body
          return .complete(message, consumed: cursor)
        }
        guard buffer.count >= cursor + size + 2 else {
          return .incomplete(headersComplete: true, partial: message)
        }
        body += buffer[cursor..<cursor + size]
        cursor += size + 2
      }
    }

    if let lengthText = message.header("Content-Length") {
      guard let length = Int(lengthText), length >= 0 else {
        return .invalid("malformed Content-Length: \(lengthText.prefix(20))")
      }
      guard length <= maximumBodySize else {
        return .invalid("HTTP body of \(length) bytes is larger than \(maximumBodySize) bytes")
      }
      guard buffer.count >= bodyStart + length else {
        return .incomplete(headersComplete: true, partial: message)
      }
      message.body = Array(buffer[bodyStart..<bodyStart + length])
      return .complete(message, consumed: bodyStart + length)
    }

    if isResponse && !atEndOfStream && message.status != 204 && message.status != 304
      && message.status >= 200
    {
      // A response without a length runs to the end of the connection.
      if buffer.count - bodyStart > maximumBodySize {
        return .invalid("HTTP body larger than \(maximumBodySize) bytes")
      }
      return .incomplete(headersComplete: true, partial: message)
    }
    message.body = isResponse ? Array(buffer[bodyStart...]) : []
    return .complete(message, consumed: isResponse ? buffer.count : bodyStart)
  }

  /// Serialises a response with a body and `Content-Length`.
  static func response(
    status: Int, reason: String, contentType: String = "text/plain; charset=utf-8",
    body: String, close: Bool
  ) -> [UInt8] {
    let bodyBytes = Array(body.utf8)
    var head = "HTTP/1.1 \(status) \(reason)\r\n"
    head += "Content-Type: \(contentType)\r\n"
    head += "Content-Length: \(bodyBytes.count)\r\n"
    head += "Access-Control-Allow-Origin: *\r\n"
    head += close ? "Connection: close\r\n" : "Connection: keep-alive\r\n"
    head += "\r\n"
    return Array(head.utf8) + bodyBytes
  }

  /// The index of the first occurrence of `pattern` in `buffer` at or after `start`.
  static func find(_ pattern: [UInt8], in buffer: [UInt8], from start: Int) -> Int? {
    guard buffer.count >= pattern.count, start <= buffer.count - pattern.count else { return nil }
    var index = start
    let last = buffer.count - pattern.count
    while index <= last {
      if buffer[index] == pattern[0] {
        var matches = true
        for offset in 1..<pattern.count where buffer[index + offset] != pattern[offset] {
          matches = false
          break
        }
        if matches { return index }
      }
      index += 1
    }
    return nil
  }
}
