// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An error from the test networking helpers.
struct NetworkTestError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// A raw loopback TCP socket for the tests: a well-behaved client, or a hostile one (slow reader,
/// idle connection, partial request). Blocking, with poll(2) timeouts; IPv4 loopback only.
final class NetworkTestSocket {
  let descriptor: Int32
  private var isClosed = false

  private init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  deinit { close() }

  /// Connects to `127.0.0.1:port`, from `source` (another loopback address, such as
  /// `127.0.0.2`, is another peer to the server; Linux routes all of 127/8 to the loopback).
  static func connect(port: UInt16, from source: String = "127.0.0.1") throws -> NetworkTestSocket {
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw NetworkTestError("socket failed: errno \(errno)") }
    if source != "127.0.0.1" {
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
        throw NetworkTestError("bind to \(source) failed: errno \(code)")
      }
    }
    let result = withLoopback(port: port) { address, length in Glibc.connect(fd, address, length) }
    guard result == 0 else {
      let code = errno
      Glibc.close(fd)
      throw NetworkTestError("connect to port \(port) failed: errno \(code)")
    }
    return NetworkTestSocket(descriptor: fd)
  }

  /// Binds a listener on `127.0.0.1` with an ephemeral port (to find a port that nobody uses).
  static func listen() throws -> (socket: NetworkTestSocket, port: UInt16) {
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw NetworkTestError("socket failed") }
    let bound = withLoopback(port: 0) { address, length in bind(fd, address, length) }
    guard bound == 0, Glibc.listen(fd, 8) == 0 else {
      Glibc.close(fd)
      throw NetworkTestError("bind/listen failed: errno \(errno)")
    }
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (NetworkTestSocket(descriptor: fd), UInt16(bigEndian: address.sin_port))
  }

  private static func withLoopback(
    port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
  ) -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }

  /// Accepts one connection on a listener within `timeout` seconds; `nil` on timeout.
  func accept(timeout: Double) -> NetworkTestSocket? {
    guard wait(events: Int16(POLLIN), timeout: timeout) else { return nil }
    let fd = Glibc.accept(descriptor, nil, nil)
    return fd >= 0 ? NetworkTestSocket(descriptor: fd) : nil
  }

  /// Sets the receive buffer size (a small one makes a slow reader's window fill quickly).
  func setReceiveBufferSize(_ bytes: Int32) {
    var value = bytes
    setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
  }

  /// Sends all of `bytes`, waiting at most `timeout` seconds for room; returns how many were sent.
  @discardableResult
  func send(_ bytes: [UInt8], timeout: Double = 2) throws -> Int {
    var sent = 0
    let deadline = Date(timeIntervalSinceNow: timeout)
    while sent < bytes.count {
      guard wait(events: Int16(POLLOUT), timeout: deadline.timeIntervalSinceNow) else {
        return sent
      }
      let count = bytes[sent...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
      }
      if count < 0 {
        if errno == EAGAIN || errno == EINTR { continue }
        throw NetworkTestError("send failed: errno \(errno)")
      }
      sent += count
    }
    return sent
  }

  /// Receives what is available within `timeout` seconds: `nil` on timeout, empty at end of stream.
  func receive(timeout: Double) throws -> [UInt8]? {
    guard wait(events: Int16(POLLIN), timeout: timeout) else { return nil }
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
    if count < 0 {
      if errno == ECONNRESET { return [] }
      throw NetworkTestError("recv failed: errno \(errno)")
    }
    return Array(buffer[..<count])
  }

  /// Whether the peer has closed the connection within `timeout` seconds (reading and discarding).
  func waitForClose(timeout: Double) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while deadline.timeIntervalSinceNow > 0 {
      guard let bytes = try? receive(timeout: deadline.timeIntervalSinceNow) else { return false }
      if bytes.isEmpty { return true }
    }
    return false
  }

  private func wait(events: Int16, timeout: Double) -> Bool {
    var entry = pollfd(fd: descriptor, events: events, revents: 0)
    let milliseconds = Int32(max(0, min(timeout, 60)) * 1000)
    return poll(&entry, 1, milliseconds) > 0
  }

  func close() {
    guard !isClosed else { return }
    isClosed = true
    Glibc.close(descriptor)
  }
}
