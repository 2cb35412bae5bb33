// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A Unix domain stream socket: the daemon's listening socket or one end of a connection.
///
/// Blocking I/O on purpose: each connection has its own reader and writer threads, which keeps the
/// delivery path short (one `write`, one `read`, no event loop hop) and makes a slow peer block
/// only its own writer thread.
package final class UnixSocket: @unchecked Sendable {
  // Sendable because `descriptor` is immutable after init except through `close()`, which swaps it
  // under `closeLock`; reads and writes of the kernel object itself are thread-safe.
  private let closeLock = NSLock()
  private var descriptor: Int32

  /// An error from a socket call, with the call's name and `errno`.
  package struct SocketError: Error, CustomStringConvertible, Sendable {
    package var operation: String
    package var code: Int32
    package var description: String { "\(operation): \(String(cString: strerror(code)))" }
  }

  private init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  deinit {
    if descriptor >= 0 { _ = Glibc.close(descriptor) }
  }

  /// The longest path `sockaddr_un` holds (107 bytes plus the terminator on Linux).
  package static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

  private static func makeAddress(_ path: String) throws -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard !bytes.isEmpty, bytes.count <= maximumPathLength else {
      throw SocketError(
        operation: "socket path too long (\(bytes.count) bytes): \(path)", code: ENAMETOOLONG)
    }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in bytes.enumerated() { buffer[index] = byte }
      buffer[bytes.count] = 0
    }
    return address
  }

  private static func newSocket() throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
    return fd
  }

  /// Connects to the socket at `path`.
  package static func connect(path: String) throws -> UnixSocket {
    var address = try makeAddress(path)
    let fd = try newSocket()
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      _ = Glibc.close(fd)
      throw SocketError(operation: "connect \(path)", code: code)
    }
    return UnixSocket(descriptor: fd)
  }

  /// Binds and listens at `path` with mode 0600. An existing socket file is replaced only when no
  /// daemon answers on it (a stale file from a crash); a live one is an `EADDRINUSE` error.
  /// Anything else at `path` (a regular file, a directory, a symbolic link, even one pointing at a
  /// socket) is someone's file, not ours to delete: it is an `EEXIST` error naming what is there.
  ///
  /// Checking and replacing is not atomic: callers that may race another daemon hold a lock (the
  /// daemon's `InstanceLock`) around it.
  package static func listen(path: String) throws -> UnixSocket {
    var status = stat()
    if lstat(path, &status) == 0 {
      let type = status.st_mode & S_IFMT
      guard type == S_IFSOCK else {
        let what: String
        switch type {
        case S_IFREG: what = "a regular file"
        case S_IFDIR: what = "a directory"
        case S_IFLNK: what = "a symbolic link"
        default: what = "a special file"
        }
        throw SocketError(
          operation: "\(path) exists and is not a socket (it is \(what)); not replacing it",
          code: EEXIST)
      }
      if let probe = try? connect(path: path) {
        probe.close()
        throw SocketError(operation: "another daemon is listening on \(path)", code: EADDRINUSE)
      }
      unlink(path)
    }
    var address = try makeAddress(path)
    let fd = try newSocket()
    // Bind under a restrictive umask so the socket is never, even briefly, reachable by others.
    let previousMask = umask(0o177)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    let bindError = errno
    umask(previousMask)
    guard result == 0 else {
      _ = Glibc.close(fd)
      throw SocketError(operation: "bind \(path)", code: bindError)
    }
    chmod(path, 0o600)
    guard Glibc.listen(fd, 64) == 0 else {
      let code = errno
      _ = Glibc.close(fd)
      throw SocketError(operation: "listen \(path)", code: code)
    }
    return UnixSocket(descriptor: fd)
  }

  /// Waits for the next connection; `nil` once the socket has been closed.
  ///
  /// - Throws: ``SocketError`` when `accept` fails on an open socket. Most such errors pass
  ///   (`EMFILE`/`ENFILE` until descriptors are freed, `ENOBUFS`/`ENOMEM` until memory is), so a
  ///   server logs them, waits a little and calls again rather than stop accepting.
  package func accept() throws -> UnixSocket? {
    while true {
      let fd = closeLock.withLock { descriptor }
      guard fd >= 0 else { return nil }
      let client = Glibc.accept(fd, nil, nil)
      if client >= 0 {
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return UnixSocket(descriptor: client)
      }
      let code = errno
      if code == EINTR || code == ECONNABORTED { continue }
      // `close()` wakes a blocked `accept` with an error (EINVAL after the shutdown): that is the
      // end, not a failure.
      if closeLock.withLock({ descriptor }) < 0 { return nil }
      throw SocketError(operation: "accept", code: code)
    }
  }

  /// The connecting process's id (SO_PEERCRED), 0 when unknown.
  package var peerProcessID: Int32 {
    // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Glibc hides it behind _GNU_SOURCE).
    var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
    var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
    let fd = closeLock.withLock { descriptor }
    let peerCredentialsOption: Int32 = 17  // SO_PEERCRED on Linux
    guard getsockopt(fd, SOL_SOCKET, peerCredentialsOption, &credentials, &length) == 0 else {
      return 0
    }
    return credentials.0
  }

  /// Writes all of `bytes`; throws when the peer has gone (never raises SIGPIPE).
  package func write(_ bytes: [UInt8]) throws {
    let fd = closeLock.withLock { descriptor }
    var offset = 0
    try bytes.withUnsafeBytes { buffer in
      while offset < buffer.count {
        let written = send(
          fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
        if written < 0 {
          if errno == EINTR { continue }
          throw SocketError(operation: "send", code: errno)
        }
        offset += written
      }
    }
  }

  /// Reads what is available (blocking until something is); an empty result means end of stream.
  package func read(into buffer: inout [UInt8]) throws -> Int {
    let fd = closeLock.withLock { descriptor }
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count >= 0 { return count }
      if errno == EINTR { continue }
      throw SocketError(operation: "recv", code: errno)
    }
  }

  /// Sets a receive timeout (for handshakes); 0 = none.
  package func setReceiveTimeout(seconds: Double) {
    let fd = closeLock.withLock { descriptor }
    let clamped = max(0, min(seconds, 3600))
    var value = timeval(
      tv_sec: Int(clamped), tv_usec: Int((clamped - clamped.rounded(.down)) * 1e6))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
  }

  /// Wakes any thread blocked in `read`/`accept` (both directions shut down) without releasing
  /// the descriptor, which stays valid until `close()` or deinit.
  package func shutdown() {
    let fd = closeLock.withLock { descriptor }
    if fd >= 0 { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
  }

  /// Shuts down and closes the socket. Safe to call more than once.
  package func close() {
    let fd = closeLock.withLock { () -> Int32 in
      defer { descriptor = -1 }
      return descriptor
    }
    if fd >= 0 {
      _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
      _ = Glibc.close(fd)
    }
  }
}
