// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemonProtocol
import Testing

@testable import MotionDaemonClient

#if canImport(Glibc)
  import Glibc
#endif

/// How `DaemonClient` gives up on a daemon that is stopped (SIGSTOP) or stuck: it neither accepts
/// connections nor reads requests, and the client's `connect` and `send` used to block for ever.
@Suite struct DaemonClientStuckDaemonTests {
  /// Runs `body` on a thread of its own and waits for it at most `seconds`: whether it finished.
  /// A hang fails the test instead of holding the suite (the caller then unblocks the thread).
  func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread {
      body()
      done.signal()
    }.start()
    return done.wait(timeout: .now() + seconds) == .success
  }

  /// A daemon that never accepts: each handshake attempt connects (the kernel queues it in the
  /// listener's backlog of 64), times out waiting for the Hello reply and closes, but stays in the
  /// backlog. Once it held 65, the next `connect` waited for room for ever, and with it
  /// `CMPedometer.authorizationStatus()` (`isHistoryAuthorized`) and the fallback to in-process
  /// sensors. Now it fails with `.timeout` within the caller's timeout.
  @Test func connectingToADaemonThatNeverAcceptsTimesOut() throws {
    let path = "/tmp/stuck-motiond-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    let listener = try UnixSocket.listen(path: path)
    defer { unlink(path) }
    let client = DaemonClient(socketPath: path)
    let attempts = 70
    let codes = Locked<[DaemonError.Code?]>([])
    let finished = finishes(within: 60) {
      for _ in 0..<attempts {
        let code: DaemonError.Code?
        do {
          try client.connect(timeout: 0.05)
          code = nil
        } catch {
          code = (error as? DaemonError)?.code
        }
        codes.withLock { $0.append(code) }
      }
    }
    // Wakes a `connect` still waiting for room, if any (it fails: the listener is gone).
    listener.close()
    #expect(finished, "connect blocked after \(codes.withLock { $0.count }) attempts")
    let seen = codes.withLock { $0 }
    #expect(seen.count == attempts)
    // The first ones connected and timed out in the handshake; the last ones found the backlog
    // full and timed out waiting for room.
    #expect(seen.prefix(60).allSatisfy { $0 == .timeout })
    #expect(seen.suffix(3).allSatisfy { $0 == .timeout })
    client.close()
  }

  /// A daemon stopped with SIGSTOP: the kernel still queues the connection, so `connect`
  /// succeeds and the Hello reply never comes. `motionctl status` said "handshake with the motion
  /// daemon failed: recv: Resource temporarily unavailable" (`recv`'s EAGAIN at the receive
  /// timeout), as `.disconnected`; it is a `.timeout` that names the daemon and the wait.
  @Test func aHandshakeNobodyAnswersTimesOutWithAClearMessage() throws {
    let path = "/tmp/silent-motiond-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    let listener = try UnixSocket.listen(path: path)
    defer {
      listener.close()
      unlink(path)
    }
    let client = DaemonClient(socketPath: path)
    defer { client.close() }
    let failure = Locked<DaemonError?>(nil)
    let finished = finishes(within: 30) {
      do { try client.connect(timeout: 0.2) } catch {
        failure.withLock { $0 = error as? DaemonError }
      }
    }
    #expect(finished)
    let error = try #require(failure.withLock { $0 })
    #expect(error.code == .timeout)
    #expect(error.message.contains("did not answer the handshake within 0.2 s"), "\(error)")
    #expect(error.message.contains(path))
  }

  /// A daemon that answers the handshake and then stops reading: the requests fill the socket's
  /// send buffer (a few hundred of them), and the next write blocked for ever, before any reply
  /// timeout applied. Now that write times out (after `replyTimeout`, the request failing with
  /// `.timeout`), the connection ends (part of a frame may have gone), and every request
  /// finishes: those behind connect again and meet the same fate.
  @Test func requestsToADaemonThatStoppedReadingAllFinish() throws {
    let daemon = try FakeDaemon()
    daemon.readsAfterHello = false
    let client = DaemonClient(socketPath: daemon.path)
    // The write's own limit (0.2 s) well under the reply timeout (2 s): with both at 0.5 s the
    // reply watch, started just before the write, could fail the request first under load, and
    // the write's timeout then had no request left to report to (a flaky count of 0 in CI).
    client.replyTimeout = 2
    try client.connect(timeout: 30)
    let requests = 2000
    let failures = Locked<[DaemonError]>([])
    let sent = finishes(within: 60) {
      for _ in 0..<requests {
        client.ask(
          .status, connectingFor: 5, sendingBy: ProcessInfo.processInfo.systemUptime + 0.2
        ) { result in
          guard case .failure(let error) = result else { return }
          failures.withLock { $0.append(error as? DaemonError ?? DaemonError(.protocolError, "")) }
        }
      }
    }
    guard sent else {
      // Closing the client shuts its socket down, which wakes the blocked write.
      client.close()
      Issue.record("a request's write blocked")
      return
    }
    // None is answered: each fails (its timeout, its connection ending, or its write timing out).
    try waitUntil(seconds: 60, "every request to fail") {
      failures.withLock { $0.count } == requests
    }
    let writesTimedOut = failures.withLock { list in
      list.filter { $0.code == .timeout && $0.message.contains("took no request") }.count
    }
    #expect(writesTimedOut >= 1)
    #expect(daemon.accepted >= 2)
    client.close()
  }

  /// The reconnect thread's connection ends as soon as it is made (here: the stream's Subscribe
  /// cannot be written to it). Its `connectionLost` sees the thread still reconnecting and leaves
  /// the reconnection to it; the thread used to declare the streams reconnected anyway and stop,
  /// and they stayed without a connection for good. It now tries again, and the stream is
  /// subscribed on the next connection.
  @Test func aReconnectionWhoseConnectionEndsAtOnceTriesAgain() throws {
    let daemon = try FakeDaemon()
    let client = DaemonClient(socketPath: daemon.path)
    let reconnections = Locked(0)
    let subscription = try client.subscribe(DaemonStreamRequest(pedometer: true)) { event in
      if case .reconnected = event { reconnections.withLock { $0 += 1 } }
    }
    try waitUntil(seconds: 30, "the subscription") { daemon.subscribes == 1 }
    // The next connection completes its handshake but takes no request: the Subscribe the
    // reconnection sends on it fails, which ends it.
    daemon.connectionsRefusingRequests = 1
    daemon.dropConnections()
    try waitUntil(seconds: 30, "the stream to be subscribed on a third connection") {
      daemon.subscribes(onConnection: 2) == 1
    }
    try waitUntil(seconds: 30, "the reconnection") { reconnections.withLock { $0 } == 1 }
    #expect(daemon.subscribes(onConnection: 1) == 0)
    subscription.cancel()
    client.close()
  }
}
