// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed socket operation, with the system's reason.
struct SocketError: Error, CustomStringConvertible {
  /// What we were doing and why it failed, for people.
  var description: String
  /// The `errno` value, or 0 when the failure did not come from a system call.
  var code: Int32

  init(_ operation: String, code: Int32 = errno) {
    self.code = code
    self.description = code == 0 ? operation : "\(operation): \(String(cString: strerror(code)))"
  }

  /// Whether the failure means "address already in use".
  var isAddressInUse: Bool { code == EADDRINUSE }
}

/// A TCP socket (listening or connected) over the POSIX API, used from one thread at a time.
///
/// The network sources keep their I/O on a dedicated thread and wait with `poll(2)`, so every call
/// here is blocking but bounded by a timeout; nothing needs an event loop library.
final class TCPSocket: @unchecked Sendable {
  /// The file descriptor, or −1 once closed.
  private(set) var descriptor: Int32

  init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  deinit { close() }

  #if canImport(Glibc)
  private static let streamType = Int32(SOCK_STREAM.rawValue)
  private static let sendFlags = Int32(MSG_NOSIGNAL)
  #elseif canImport(Darwin)
  private static let streamType = SOCK_STREAM
  private static let sendFlags: Int32 = 0  // SO_NOSIGPIPE is set on each socket instead.
  #else
  private static let streamType = Int32(SOCK_STREAM)
  private static let sendFlags = Int32(MSG_NOSIGNAL)
  #endif

  /// Opens a listening socket on `host:port` (`port` 0 picks a free port; see ``localPort``).
  ///
  /// `SO_REUSEADDR` is set so that a receiver can be restarted at once on the same port even while
  /// old connections linger in `TIME_WAIT`.
  static func listen(host: String, port: UInt16, backlog: Int32 = 16) throws -> TCPSocket {
    try withAddresses(host: host, port: port, passive: true) { info in
      let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
      guard fd >= 0 else { throw SocketError("socket()") }
      let socket = TCPSocket(descriptor: fd)
      var yes: Int32 = 1
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
      socket.disableSigPipe()
      guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else {
        throw SocketError("cannot listen on \(host):\(port)")
      }
      guard posixListen(fd, backlog) == 0 else { throw SocketError("listen() on \(host):\(port)") }
      return socket
    }
  }

  /// Connects to `host:port`, giving up after `timeout` seconds.
  static func connect(host: String, port: UInt16, timeout: Double) throws -> TCPSocket {
    try withAddresses(host: host, port: port, passive: false) { info in
      let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
      guard fd >= 0 else { throw SocketError("socket()") }
      let socket = TCPSocket(descriptor: fd)
      socket.disableSigPipe()
      let flags = fcntl(fd, F_GETFL, 0)
      _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
      if posixConnect(fd, info.ai_addr, info.ai_addrlen) != 0 {
        guard errno == EINPROGRESS else { throw SocketError("cannot connect to \(host):\(port)") }
        guard socket.wait(for: Int16(POLLOUT), timeout: timeout) else {
          throw SocketError(
            "cannot connect to \(host):\(port): timed out after \(timeout) s", code: 0)
        }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        guard error == 0 else {
          throw SocketError("cannot connect to \(host):\(port)", code: error)
        }
      }
      _ = fcntl(fd, F_SETFL, flags)
      var yes: Int32 = 1
      setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
      return socket
    }
  }

  /// Tries each address `getaddrinfo` returns for `host:port` until `body` succeeds.
  private static func withAddresses(
    host: String, port: UInt16, passive: Bool, _ body: (addrinfo) throws -> TCPSocket
  ) throws -> TCPSocket {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = streamType
    hints.ai_flags = passive ? AI_PASSIVE : 0
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &list)
    guard status == 0, let first = list else {
      let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
      throw SocketError("cannot resolve \(host): \(reason)", code: 0)
    }
    defer { freeaddrinfo(first) }
    var lastError: Error = SocketError("no usable address for \(host)", code: 0)
    var cursor: UnsafeMutablePointer<addrinfo>? = first
    while let entry = cursor {
      do {
        return try body(entry.pointee)
      } catch {
        lastError = error
      }
      cursor = entry.pointee.ai_next
    }
    throw lastError
  }

  private func disableSigPipe() {
    #if canImport(Darwin)
    var yes: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
    #endif
  }

  /// The local port the socket is bound to (the chosen one after listening on port 0).
  var localPort: UInt16 {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let status = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard status == 0 else { return 0 }
    switch Int32(storage.ss_family) {
    case AF_INET:
      return withUnsafePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
          UInt16(bigEndian: $0.pointee.sin_port)
        }
      }
    case AF_INET6:
      return withUnsafePointer(to: &storage) {
        $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
          UInt16(bigEndian: $0.pointee.sin6_port)
        }
      }
    default:
      return 0
    }
  }

  /// Accepts a pending connection (call after `poll` reported the listener readable).
  func accept() throws -> TCPSocket {
    let fd = posixAccept(descriptor, nil, nil)
    guard fd >= 0 else { throw SocketError("accept()") }
    let socket = TCPSocket(descriptor: fd)
    socket.disableSigPipe()
    return socket
  }

  /// Sends every byte, or throws.
  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes { buffer in
        posixSend(descriptor, buffer.baseAddress! + offset, bytes.count - offset, Self.sendFlags)
      }
      if sent < 0 {
        if errno == EINTR { continue }
        throw SocketError("send()")
      }
      offset += sent
    }
  }

  /// Sends the UTF-8 bytes of `text`.
  func send(_ text: String) throws {
    try send(Array(text.utf8))
  }

  /// Reads what is available (blocking until something is); an empty result means the peer closed.
  func receive(maximum: Int = 65_536) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: maximum)
    while true {
      let count = buffer.withUnsafeMutableBytes {
        posixRecv(descriptor, $0.baseAddress, maximum, 0)
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw SocketError("recv()")
      }
      return Array(buffer[0..<count])
    }
  }

  /// Reads with a deadline: `nil` if nothing arrived within `timeout` seconds.
  func receive(timeout: Double, maximum: Int = 65_536) throws -> [UInt8]? {
    guard wait(for: Int16(POLLIN), timeout: timeout) else { return nil }
    return try receive(maximum: maximum)
  }

  /// Waits until the socket is ready for `events`; `false` on timeout.
  func wait(for events: Int16, timeout: Double) -> Bool {
    var entry = pollfd(fd: descriptor, events: events, revents: 0)
    let milliseconds = Int32(max(0, min(timeout, 3_600)) * 1_000)
    while true {
      let status = poll(&entry, 1, milliseconds)
      if status < 0 && errno == EINTR { continue }
      return status > 0
    }
  }

  /// Closes the socket; later calls do nothing.
  func close() {
    guard descriptor >= 0 else { return }
    _ = posixClose(descriptor)
    descriptor = -1
  }
}

/// Waits on several descriptors at once; returns the `revents` of each, in order (all zero on
/// timeout).
func pollForInput(_ descriptors: [Int32], timeout: Double) -> [Int16] {
  var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
  let milliseconds = Int32(max(0, min(timeout, 3_600)) * 1_000)
  while true {
    let status = poll(&entries, nfds_t(entries.count), milliseconds)
    if status < 0 && errno == EINTR { continue }
    return entries.map(\.revents)
  }
}

/// A self-pipe that wakes a network thread blocked in `poll(2)`, so that stopping is immediate.
final class WakeSignal: @unchecked Sendable {
  /// The read end, to include in `poll`.
  let readDescriptor: Int32
  private let writeDescriptor: Int32

  init() throws {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw SocketError("pipe()") }
    readDescriptor = ends[0]
    writeDescriptor = ends[1]
    for fd in ends { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK) }
  }

  deinit {
    _ = posixClose(readDescriptor)
    _ = posixClose(writeDescriptor)
  }

  /// Wakes the waiting thread.
  func signal() {
    var byte: UInt8 = 1
    _ = write(writeDescriptor, &byte, 1)
  }

  /// Empties the pipe after a wake-up.
  func drain() {
    var buffer = [UInt8](repeating: 0, count: 64)
    while buffer.withUnsafeMutableBytes({ read(readDescriptor, $0.baseAddress, 64) }) > 0 {}
  }
}

// The POSIX names `listen`, `connect`, `accept`, `send`, `recv` and `close` collide with this
// file's methods; these wrappers name the C functions unambiguously.
@inline(__always) private func posixListen(_ fd: Int32, _ backlog: Int32) -> Int32 {
  listen(fd, backlog)
}
@inline(__always) private func posixConnect(
  _ fd: Int32, _ address: UnsafePointer<sockaddr>!, _ length: socklen_t
) -> Int32 {
  connect(fd, address, length)
}
@inline(__always) private func posixAccept(
  _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?,
  _ length: UnsafeMutablePointer<socklen_t>?
) -> Int32 {
  accept(fd, address, length)
}
@inline(__always) private func posixSend(
  _ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ flags: Int32
) -> Int {
  send(fd, buffer, count, flags)
}
@inline(__always) private func posixRecv(
  _ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ flags: Int32
) -> Int {
  recv(fd, buffer, count, flags)
}
@inline(__always) func posixClose(_ fd: Int32) -> Int32 {
  close(fd)
}
