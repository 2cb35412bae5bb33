// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A raw loopback TCP connection for tests that misbehave on purpose (send nothing, half a
/// request, a huge header, never read). Blocking, with poll(2) timeouts; IPv4 loopback only.
final class DashboardRawConnection {
  private let descriptor: Int32
  private var isClosed = false

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Connects to `127.0.0.1:port` from the loopback address `source` (`127.0.0.2` is another
  /// peer to the server); `receiveBufferBytes` shrinks the receive window (a reader that stops
  /// then fills the server's socket quickly).
  init(port: Int, from source: String = "127.0.0.1", receiveBufferBytes: Int32? = nil) throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "socket failed: errno \(errno)") }
    if var size = receiveBufferBytes {
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var local = sockaddr_in()
    local.sin_family = sa_family_t(AF_INET)
    local.sin_addr.s_addr = inet_addr(source)
    let bound = withUnsafePointer(to: &local) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else {
      let code = errno
      Glibc.close(fd)
      throw Failure(description: "bind to \(source) failed: errno \(code)")
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      Glibc.close(fd)
      throw Failure(description: "connect failed: errno \(code)")
    }
    descriptor = fd
  }

  deinit { close() }

  /// Sends `text`, waiting at most 2 s for room; returns how many bytes were sent.
  @discardableResult
  func send(_ text: String) throws -> Int {
    let bytes = Array(text.utf8)
    var sent = 0
    while sent < bytes.count {
      guard wait(events: Int16(POLLOUT), timeout: 2) else { return sent }
      let count = bytes[sent...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
      }
      if count < 0 {
        if errno == EAGAIN || errno == EINTR { continue }
        return sent  // reset by the server (it closed the connection)
      }
      sent += count
    }
    return sent
  }

  /// What arrives within `timeout` seconds: `nil` on timeout, empty at end of stream (or reset).
  func receive(timeout: Double) -> [UInt8]? {
    guard wait(events: Int16(POLLIN), timeout: timeout) else { return nil }
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
    return count <= 0 ? [] : Array(buffer[..<count])
  }

  /// The status code of the response that starts within `timeout` seconds, or `nil`.
  func status(timeout: Double = 5) -> Int? {
    var head: [UInt8] = []
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !head.contains(13), deadline.timeIntervalSinceNow > 0 {
      guard let bytes = receive(timeout: deadline.timeIntervalSinceNow), !bytes.isEmpty else {
        break
      }
      head += bytes
    }
    let line = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self)
    let parts = line.split(separator: " ")
    return parts.count >= 2 ? Int(parts[1]) : nil
  }

  /// The status line and header fields of the response that arrives within `timeout` seconds
  /// (up to the blank line), or what arrived of them.
  func head(timeout: Double = 5) -> String {
    var head: [UInt8] = []
    let end: [UInt8] = [13, 10, 13, 10]
    let deadline = Date(timeIntervalSinceNow: timeout)
    while deadline.timeIntervalSinceNow > 0 {
      if let range = head.firstRange(of: end) {
        return String(decoding: head[..<range.lowerBound], as: UTF8.self)
      }
      guard let bytes = receive(timeout: deadline.timeIntervalSinceNow), !bytes.isEmpty else {
        break
      }
      head += bytes
    }
    return String(decoding: head, as: UTF8.self)
  }

  /// Whether the server closes the connection within `timeout` seconds (reading and discarding
  /// whatever arrives before the end).
  func waitForClose(timeout: Double) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while deadline.timeIntervalSinceNow > 0 {
      guard let bytes = receive(timeout: deadline.timeIntervalSinceNow) else { return false }
      if bytes.isEmpty { return true }
    }
    return false
  }

  private func wait(events: Int16, timeout: Double) -> Bool {
    var entry = pollfd(fd: descriptor, events: events, revents: 0)
    return poll(&entry, 1, Int32(max(0, min(timeout, 60)) * 1000)) > 0
  }

  func close() {
    guard !isClosed else { return }
    isClosed = true
    Glibc.close(descriptor)
  }
}
