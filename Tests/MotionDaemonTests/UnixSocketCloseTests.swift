// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemonProtocol
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `UnixSocket.close()` while another thread is in a call on the socket. A call fetches the
/// descriptor's number, then makes the system call; a `close()` in between used to free the number
/// at once, and the next socket or file the process opened got it: the call then read another
/// connection's bytes (or wrote into it). The number is now held until the call returns.
@Suite struct UnixSocketCloseTests {
  /// A connected pair through a listening socket in /tmp.
  private func pair() throws -> (listener: UnixSocket, client: UnixSocket, server: UnixSocket) {
    let path = "/tmp/unixsocket-close-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    let listener = try UnixSocket.listen(path: path)
    let client = try UnixSocket.connect(path: path)
    unlink(path)  // connected: the file is not needed any more
    let server = try #require(try listener.accept())
    return (listener, client, server)
  }

  @Test func aCallInProgressNeverReachesASocketOpenedAfterTheClose() throws {
    let (listener, reader, writer) = try pair()
    // The reader's call pauses between fetching the number and `recv`; meanwhile the socket is
    // closed and new connections are made (the process's lowest free numbers go to them).
    let paused = DispatchSemaphore(value: 0)
    let resume = DispatchSemaphore(value: 0)
    reader.afterBorrowForTesting = {
      paused.signal()
      resume.wait()
    }
    let result = Locked<Result<[UInt8], any Error>?>(nil)
    let thread = Thread {
      var buffer = [UInt8](repeating: 0, count: 64)
      do {
        let count = try reader.read(into: &buffer)
        result.withLock { $0 = .success(Array(buffer.prefix(count))) }
      } catch {
        result.withLock { $0 = .failure(error) }
      }
    }
    thread.start()
    #expect(paused.wait(timeout: .now() + 10) == .success)
    reader.close()
    // A new connection with bytes waiting at its first end: the lowest free number (the closed
    // socket's, had it been freed) goes to that end.
    var ends: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
    let message = Array("another connection".utf8)
    #expect(send(ends[1], message, message.count, Int32(MSG_NOSIGNAL)) == message.count)
    resume.signal()
    let deadline = Date().addingTimeInterval(10)
    while result.withLock({ $0 }) == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    switch try #require(result.withLock { $0 }) {
    case .success(let bytes):
      // The shut-down socket's end of stream: nothing, never the other connection's bytes.
      #expect(bytes == [], "read \(String(decoding: bytes, as: UTF8.self))")
    case .failure:
      break  // an error is fine too; reading someone else's data is not
    }
    // The number is released once the call returned: later calls fail cleanly.
    var buffer = [UInt8](repeating: 0, count: 8)
    #expect(throws: UnixSocket.SocketError.self) { try reader.read(into: &buffer) }
    #expect(throws: UnixSocket.SocketError.self) { try reader.write([1]) }
    // The new connection still has its bytes.
    var received = [UInt8](repeating: 0, count: 64)
    #expect(recv(ends[0], &received, received.count, Int32(MSG_DONTWAIT)) == message.count)
    Glibc.close(ends[0])
    Glibc.close(ends[1])
    writer.close()
    listener.close()
  }

  @Test func closingTwiceAndFromManyThreadsIsSafe() throws {
    for _ in 0..<50 {
      let (listener, client, server) = try pair()
      let group = DispatchGroup()
      for index in 0..<8 {
        DispatchQueue.global().async(group: group) {
          if index % 2 == 0 {
            client.close()
          } else {
            var buffer = [UInt8](repeating: 0, count: 8)
            _ = try? client.read(into: &buffer)
          }
        }
      }
      #expect(group.wait(timeout: .now() + 10) == .success)
      var buffer = [UInt8](repeating: 0, count: 8)
      #expect(throws: UnixSocket.SocketError.self) { try client.read(into: &buffer) }
      server.close()
      listener.close()
    }
  }
}
