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
  // Sendable because `descriptor`, `borrowers` and `pendingClose` are only touched under `lock`;
  // reads and writes of the kernel object itself are thread-safe.
  private let lock = NSLock()
  /// The descriptor for new calls; -1 once `close()` has been called.
  private var descriptor: Int32
  /// Calls in progress on the descriptor (a blocked `recv`, `send` or `accept`).
  private var borrowers = 0
  /// A descriptor that `close()` shut down while calls were still using it: closed when the last
  /// of them returns. Closing it at once would free its number for the next `open` or `socket`
  /// of the process, and a call that fetched the number just before would read or write that
  /// other file.
  private var pendingClose: Int32 = -1

  /// Runs between fetching the descriptor and the system call, for the tests (the window in
  /// which a `close()` on another thread must not free the number).
  package var afterBorrowForTesting: (@Sendable () -> Void)? {
    get { lock.withLock { testHook } }
    set { lock.withLock { testHook = newValue } }
  }
  private var testHook: (@Sendable () -> Void)?

  /// An error from a socket call, with the call's name and `errno`.
  package struct SocketError: Error, CustomStringConvertible, Sendable {
    package var operation: String
    package var code: Int32
    package var description: String { "\(operation): \(String(cString: strerror(code)))" }
    /// Whether the call gave up at its timeout (`ETIMEDOUT`) rather than failed.
    package var isTimeout: Bool { code == ETIMEDOUT }
  }

  private init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  deinit {
    // No call can be in progress on an object being deinitialised: one of the two is open.
    if descriptor >= 0 { _ = Glibc.close(descriptor) }
    if pendingClose >= 0 { _ = Glibc.close(pendingClose) }
  }

  /// The descriptor for one call, kept open until ``giveBack()``; `nil` once closed.
  private func borrow() -> Int32? {
    let (fd, hook) = lock.withLock { () -> (Int32?, (@Sendable () -> Void)?) in
      guard descriptor >= 0 else { return (nil, nil) }
      borrowers += 1
      return (descriptor, testHook)
    }
    if fd != nil { hook?() }
    return fd
  }

  /// Ends a call; the last one to end after a `close()` releases the descriptor.
  private func giveBack() {
    lock.withLock {
      borrowers -= 1
      if borrowers == 0, pendingClose >= 0 {
        _ = Glibc.close(pendingClose)
        pendingClose = -1
      }
    }
  }

  /// Runs `body` with the descriptor borrowed; throws EBADF, as the system call would, once the
  /// socket is closed.
  private func withDescriptor<Result>(
    _ operation: String, _ body: (Int32) throws -> Result
  ) throws -> Result {
    guard let fd = borrow() else { throw SocketError(operation: operation, code: EBADF) }
    defer { giveBack() }
    return try body(fd)
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

  /// Connects to the socket at `path`, waiting at most `timeout` s (`nil`: no limit) for room in
  /// the listener's backlog.
  ///
  /// A listener that stops accepting (a daemon stopped with SIGSTOP, or stuck) keeps every
  /// connection made to it in its backlog; once the backlog is full, a Linux Unix-socket
  /// `connect` waits for room for as long as the socket's send timeout, by default for ever. The
  /// timeout is that send timeout (`SO_SNDTIMEO`), set for the `connect` only: it then fails
  /// with `ETIMEDOUT` (``SocketError/isTimeout``).
  package static func connect(path: String, timeout: Double? = nil) throws -> UnixSocket {
    var address = try makeAddress(path)
    let fd = try newSocket()
    let deadline = timeout.map { ProcessInfo.processInfo.systemUptime + max(0, $0) }
    var code: Int32 = 0
    while true {
      if let deadline {
        let left = deadline - ProcessInfo.processInfo.systemUptime
        guard left > 0 else {
          code = ETIMEDOUT
          break
        }
        setTimeout(fd, SO_SNDTIMEO, seconds: left)
      }
      let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
      }
      if result == 0 {
        code = 0
        break
      }
      code = errno
      // A signal during the wait: the socket is still unconnected, so trying again is safe.
      if code == EINTR { continue }
      // What a Unix socket's `connect` reports when its send timeout ran out.
      if code == EAGAIN, deadline != nil { code = ETIMEDOUT }
      break
    }
    guard code == 0 else {
      _ = Glibc.close(fd)
      throw SocketError(operation: "connect \(path)", code: code)
    }
    // Writes take a timeout of their own (`write(_:timeout:)`).
    if deadline != nil { setTimeout(fd, SO_SNDTIMEO, seconds: 0) }
    return UnixSocket(descriptor: fd)
  }

  /// Sets `option` (`SO_RCVTIMEO` or `SO_SNDTIMEO`) of `fd` to `seconds` (at most an hour); 0 =
  /// none. A positive time is at least 1 µs, since a zero `timeval` would mean none.
  private static func setTimeout(_ fd: Int32, _ option: Int32, seconds: Double) {
    let clamped = max(0, min(seconds, 3600))
    var value = timeval(
      tv_sec: Int(clamped), tv_usec: Int((clamped - clamped.rounded(.down)) * 1e6))
    if clamped > 0, value.tv_sec == 0, value.tv_usec == 0 { value.tv_usec = 1 }
    _ = setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
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
      guard let fd = borrow() else { return nil }
      let client = Glibc.accept(fd, nil, nil)
      let code = errno
      giveBack()
      if client >= 0 {
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        return UnixSocket(descriptor: client)
      }
      if code == EINTR || code == ECONNABORTED { continue }
      // `close()` wakes a blocked `accept` with an error (EINVAL after the shutdown): that is the
      // end, not a failure.
      if lock.withLock({ descriptor }) < 0 { return nil }
      throw SocketError(operation: "accept", code: code)
    }
  }

  /// The connecting process's id (SO_PEERCRED), 0 when unknown.
  package var peerProcessID: Int32 { peerCredentials?.processID ?? 0 }

  /// The user the process at the other end ran as when the connection was made (SO_PEERCRED),
  /// or `nil` when the kernel does not say.
  package var peerUserID: UInt32? { peerCredentials?.userID }

  private var peerCredentials: (processID: Int32, userID: UInt32)? {
    // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (Glibc hides it behind _GNU_SOURCE).
    var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
    var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
    let peerCredentialsOption: Int32 = 17  // SO_PEERCRED on Linux
    let result = try? withDescriptor("getsockopt") {
      getsockopt($0, SOL_SOCKET, peerCredentialsOption, &credentials, &length)
    }
    guard result == 0, length == socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size) else {
      return nil
    }
    return (credentials.0, credentials.1)
  }

  /// Whether the process at the other end runs as this process's user or as root: the only
  /// peers a daemon and its clients trust with motion data. Without `XDG_RUNTIME_DIR` the socket
  /// lives under `/tmp`, where another user can create the folder first and listen there.
  package var isPeerTrusted: Bool {
    guard let user = peerUserID else { return false }
    return user == getuid() || user == 0
  }

  /// Writes all of `bytes`; throws when the peer has gone (never raises SIGPIPE).
  ///
  /// With a `timeout`, gives up with `ETIMEDOUT` (``SocketError/isTimeout``) when the peer has not
  /// taken all of them within `timeout` s: a peer that stopped reading fills the send buffer,
  /// and a blocking `send` would then wait for ever. Part of `bytes` may have been sent by then,
  /// so the byte stream is out of step: the caller closes the socket.
  package func write(_ bytes: [UInt8], timeout: Double? = nil) throws {
    let deadline = timeout.map { ProcessInfo.processInfo.systemUptime + max(0, $0) }
    // Without a deadline, a blocking `send`; with one, a non-blocking `send` and a `poll` for
    // room (per call, where `SO_SNDTIMEO` would apply to every thread writing to the socket).
    let flags = Int32(MSG_NOSIGNAL) | (deadline == nil ? 0 : Int32(MSG_DONTWAIT))
    try withDescriptor("send") { fd in
      var offset = 0
      try bytes.withUnsafeBytes { buffer in
        while offset < buffer.count {
          let written = send(fd, buffer.baseAddress! + offset, buffer.count - offset, flags)
          if written < 0 {
            let code = errno
            if code == EINTR { continue }
            if let deadline, code == EAGAIN || code == EWOULDBLOCK {
              try Self.waitForRoom(fd, until: deadline)
              continue
            }
            throw SocketError(operation: "send", code: code)
          }
          offset += written
        }
      }
    }
  }

  /// Waits until `fd` can take more bytes, or an error or hang-up that the next `send` reports;
  /// throws `ETIMEDOUT` at `deadline` (boot clock, s).
  private static func waitForRoom(_ fd: Int32, until deadline: Double) throws {
    while true {
      let left = deadline - ProcessInfo.processInfo.systemUptime
      guard left > 0 else { throw SocketError(operation: "send", code: ETIMEDOUT) }
      var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
      // Whole milliseconds, at least 1: a 0 would return at once and spin.
      let result = poll(&entry, 1, Int32(min(max(1, (left * 1000).rounded(.up)), 3_600_000)))
      if result > 0 { return }
      if result < 0, errno != EINTR { throw SocketError(operation: "poll", code: errno) }
    }
  }

  /// Reads what is available (blocking until something is); an empty result means end of stream.
  package func read(into buffer: inout [UInt8]) throws -> Int {
    try withDescriptor("recv") { fd in
      while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count >= 0 { return count }
        if errno == EINTR { continue }
        throw SocketError(operation: "recv", code: errno)
      }
    }
  }

  /// Sets a receive timeout (for handshakes); 0 = none.
  package func setReceiveTimeout(seconds: Double) {
    _ = try? withDescriptor("setsockopt") { Self.setTimeout($0, SO_RCVTIMEO, seconds: seconds) }
  }

  /// Wakes any thread blocked in `read`/`accept` (both directions shut down) without releasing
  /// the descriptor, which stays valid until `close()` or deinit.
  package func shutdown() {
    lock.withLock {
      if descriptor >= 0 { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
    }
  }

  /// Stops reading this end (`SHUT_RD`): the peer's writes fail with `EPIPE` from now on, while
  /// this end can still write to it. For the tests' stand-in daemons, to make a client's next
  /// write fail at a known point.
  package func shutdownReading() {
    lock.withLock {
      if descriptor >= 0 { _ = Glibc.shutdown(descriptor, Int32(SHUT_RD)) }
    }
  }

  /// Shuts down and closes the socket. Safe to call more than once, and while other threads are
  /// blocked in calls on it: they wake (the shutdown) and the descriptor is released when the
  /// last of them returns, never while one still holds its number.
  package func close() {
    lock.withLock {
      let fd = descriptor
      guard fd >= 0 else { return }
      descriptor = -1
      // Under the lock: once it is released a returning call may close the descriptor.
      _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
      if borrowers == 0 {
        _ = Glibc.close(fd)
      } else {
        pendingClose = fd
      }
    }
  }
}
