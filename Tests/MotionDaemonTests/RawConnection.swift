// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonProtocol
import SwiftProtobuf

#if canImport(Glibc)
  import Glibc
#endif

/// A client socket opened directly, for tests that misbehave on purpose (half frames, never
/// reading, pipelining thousands of requests) where `DaemonClient` would behave.
final class RawConnection: @unchecked Sendable {
  // Sendable because `descriptor` is immutable (the kernel serialises concurrent send and recv)
  // and `decoder` is used by one thread only (whichever receives; a test receives on one).
  let descriptor: Int32
  private var decoder = FrameDecoder()

  init(path: String) throws {
    descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      _ = close(descriptor)
      throw DaemonProcess.Failure(description: "connect \(path): errno \(code)")
    }
  }

  deinit { _ = close(descriptor) }

  /// A raw client connected to a fresh socket path (named after `prefix`, removed at once), and
  /// the daemon side's accepted socket for it: for tests that drive a `ClientSession` in process.
  static func accepted(prefix: String) throws -> (client: RawConnection, socket: UnixSocket) {
    let path = "/tmp/\(prefix)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    let listener = try UnixSocket.listen(path: path)
    defer { listener.close() }
    let client = try RawConnection(path: path)
    unlink(path)
    guard let socket = try listener.accept() else {
      throw DaemonProcess.Failure(description: "accept \(path): no connection")
    }
    return (client, socket)
  }

  /// Writes all of `bytes` (blocking).
  func write(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes {
        send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard written > 0 else { throw DaemonProcess.Failure(description: "send: errno \(errno)") }
      offset += written
    }
  }

  /// Writes what the socket takes now without blocking; returns the bytes written (0: full).
  func writeAvailable(_ bytes: ArraySlice<UInt8>) -> Int {
    let written = bytes.withUnsafeBytes {
      send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
    }
    return max(0, written)
  }

  /// Whether the socket becomes writable within `seconds`.
  func waitWritable(seconds: Double) -> Bool {
    var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
    return poll(&entry, 1, Int32(seconds * 1000)) == 1
  }

  /// The next message, `nil` at end of stream or when nothing arrives within `seconds`.
  func receive(seconds: Double = 20) throws -> WireServerMessage? {
    let deadline = Date(timeIntervalSinceNow: seconds)
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      if let frame = try decoder.nextFrame() {
        let message = try WireServerMessage(serializedBytes: Array(frame))
        decoder.compact()
        return message
      }
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0 else { return nil }
      var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&entry, 1, Int32(min(remaining, 1) * 1000) + 1) == 1 else { continue }
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count <= 0 { return nil }
      decoder.append(buffer[0..<count])
    }
  }

  /// Whether the daemon closes the connection within `seconds` (messages before it are skipped).
  func isClosedByPeer(within seconds: Double) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while deadline.timeIntervalSinceNow > 0 {
      var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&entry, 1, 200) == 1 else { continue }
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if count <= 0 { return true }
    }
    return false
  }
}
