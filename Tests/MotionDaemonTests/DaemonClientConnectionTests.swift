// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import Testing

@testable import MotionDaemonClient

/// How `DaemonClient` makes its connection, against a ``FakeDaemon`` that is slow to answer the
/// handshake or sends a notice first.
@Suite struct DaemonClientConnectionTests {
  /// Whether `condition` comes to hold within `seconds` (polled every 20 ms): for what must not
  /// happen, a bounded wait for it.
  func happens(within seconds: Double, _ condition: () -> Bool) -> Bool {
    (try? waitUntil(seconds: seconds, "") { condition() }) != nil
  }

  /// Requests from several threads connect at once while the daemon is slow to answer: one of them
  /// connects, the others wait for it and use its connection instead of each opening one.
  @Test func concurrentConnectCallsShareOneConnection() throws {
    let daemon = try FakeDaemon()
    daemon.helloDelay = 0.3
    let client = DaemonClient(socketPath: daemon.path)
    let failures = Locked(0)
    let done = DispatchGroup()
    // Threads of their own: a dispatch queue would run only as many at once as there are cores.
    for _ in 0..<8 {
      done.enter()
      Thread {
        if (try? client.connect(timeout: 30)) == nil { failures.withLock { $0 += 1 } }
        done.leave()
      }.start()
    }
    #expect(done.wait(timeout: .now() + 30) == .success)
    #expect(failures.withLock { $0 } == 0)
    #expect(daemon.accepted == 1)
    #expect(!happens(within: 0.5) { daemon.accepted > 1 })
    client.close()
  }

  /// A client its owner drops without `close()` (an app that lets its manager go) is freed and
  /// its connection ends: the reader thread does not keep it alive. Before 2026-11-28 (night) the
  /// reader held the client while it waited on the socket, so the connection stayed open for the
  /// life of the process.
  @Test func aClientDroppedWithoutClosingEndsItsConnection() async throws {
    let daemon = try FakeDaemon()
    weak var dropped: DaemonClient?
    do {
      let client = DaemonClient(socketPath: daemon.path)
      try client.connect(timeout: 30)
      // An answer (the fake daemon acknowledges, which the client takes for a wrong answer) has
      // come through the reader thread: it is reading the socket now.
      _ = try? await client.historyAuthorization()
      dropped = client
    }
    try waitUntil(seconds: 30, "the connection to end") { daemon.ended == 1 }
    #expect(dropped == nil)
    #expect(daemon.accepted == 1)
  }

  /// The daemon drops the connection; while the reconnect thread handshakes, a request connects.
  /// Two connections would each subscribe the stream (its handler would get every sample twice,
  /// and one socket would be orphaned): the request must wait for the reconnection and use it.
  @Test func aRequestConnectingDuringAReconnectionSubscribesNothingTwice() throws {
    let daemon = try FakeDaemon()
    let client = DaemonClient(socketPath: daemon.path)
    let reconnections = Locked(0)
    let subscription = try client.subscribe(DaemonStreamRequest(pedometer: true)) { event in
      if case .reconnected = event { reconnections.withLock { $0 += 1 } }
    }
    try waitUntil(seconds: 30, "the subscription") { daemon.subscribes == 1 }
    daemon.helloDelay = 0.3
    daemon.dropConnections()
    try waitUntil(seconds: 30, "the reconnect thread to connect") { daemon.accepted == 2 }
    try client.connect(timeout: 30)
    try waitUntil(seconds: 30, "the reconnection") { reconnections.withLock { $0 } == 1 }
    try waitUntil(seconds: 30, "the stream to be subscribed again") {
      daemon.subscribes(onConnection: 1) == 1
    }
    #expect(!happens(within: 1) { daemon.accepted > 2 || daemon.subscribes > 2 })
    #expect(daemon.accepted == 2)
    #expect(daemon.subscribes == 2)
    subscription.cancel()
    client.close()
  }

  /// An authorization change notified to every client (request_id 0) can be queued before the
  /// Hello reply of a connection being made: the handshake skips it. Skipping is bounded: a peer
  /// that only sends notices fails the handshake rather than hold it.
  @Test func noticesBeforeTheHelloReplyAreSkippedUpToALimit() throws {
    let daemon = try FakeDaemon()
    daemon.noticesBeforeHello = 2
    let client = DaemonClient(socketPath: daemon.path)
    #expect(try client.connect(timeout: 30).sourceName == "fake")
    client.close()

    daemon.noticesBeforeHello = DaemonClient.noticesSkippedInHandshake + 1
    let flooded = DaemonClient(socketPath: daemon.path)
    #expect(throws: DaemonError.self) { try flooded.connect() }
    flooded.close()
  }

  /// A daemon that takes requests and never answers them (stopped with SIGSTOP, or stuck): a
  /// request used to wait for ever, and so did every app call behind it. It now fails with
  /// `.timeout` after `replyTimeout` s without a reply.
  @Test func aRequestTheDaemonNeverAnswersTimesOut() async throws {
    let daemon = try FakeDaemon()
    daemon.answersQueries = false
    let client = DaemonClient(socketPath: daemon.path)
    client.replyTimeout = 0.3
    // The error names the timeout that ended the wait: the 0.3 s setting, not the 30 s default.
    // (A bound on the elapsed time said the same, but the timeout fires from a global dispatch
    // queue, which a loaded CI machine running the suites in parallel delayed to 6.2 s once.)
    await #expect {
      _ = try await client.status()
    } throws: { error in
      guard let error = error as? DaemonError else { return false }
      return error.code == .timeout && error.message.contains("for 0.3 s")
    }
    client.close()
  }

  /// Cancelling the task that waits for a reply ends the wait at once with `.cancelled` (it used
  /// to ignore the cancellation and wait for the reply, for ever if none came).
  @Test func cancellingTheTaskEndsTheRequest() async throws {
    let daemon = try FakeDaemon()
    daemon.answersQueries = false
    let client = DaemonClient(socketPath: daemon.path)
    client.replyTimeout = 600
    _ = try client.connect(timeout: 30)
    let task = Task { try await client.status() }
    try await Task.sleep(nanoseconds: 200_000_000)
    let start = Date()
    task.cancel()
    await #expect {
      _ = try await task.value
    } throws: { error in
      (error as? DaemonError)?.code == .cancelled
    }
    // With a 600 s reply timeout, only the cancellation can end the wait: a generous bound, so
    // that a loaded machine's slow wake-up does not fail the test, but a hang does.
    #expect(Date().timeIntervalSince(start) < 60)
    // A task cancelled before its request is sent fails the same way.
    let early = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await client.status()
    }
    await #expect {
      _ = try await early.value
    } throws: { error in
      (error as? DaemonError)?.code == .cancelled
    }
    client.close()
  }

  /// A reconnection takes the list of streams, then subscribes each on the new connection. A
  /// stream cancelled in between had sent its Unsubscribe already (with its old id, or nowhere):
  /// subscribing it again left the daemon streaming to nobody until the connection closed.
  @Test func aStreamCancelledDuringAReconnectionIsNotSubscribedAgain() throws {
    let daemon = try FakeDaemon()
    let client = DaemonClient(socketPath: daemon.path)
    let subscription = try client.subscribe(DaemonStreamRequest(sensors: .accelerometer, rate: 50))
    {
      _ in
    }
    try waitUntil(seconds: 30, "the subscription") { daemon.subscribes == 1 }
    // What the reconnection captured, before the cancellation.
    let captured = client.subscribedStreams
    #expect(captured.count == 1)
    subscription.cancel()
    for stream in captured { client.sendSubscribe(stream) }
    #expect(!happens(within: 0.5) { daemon.subscribes > 1 })
    client.close()
  }
}
