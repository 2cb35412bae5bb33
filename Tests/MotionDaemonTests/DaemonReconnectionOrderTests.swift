// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemon
import MotionDaemonClient
import MotionDaemonProtocol
import MotionSensors
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What a stream is told across a daemon restart, and when `DaemonClient.isHistoryAuthorized`
/// answers while the daemon is away.
///
/// The reconnect thread used to tell every stream `.reconnected` once its `connect` returned,
/// while the new connection's reader thread was already handing the streams their samples: the
/// order of the two was left to the scheduler. The tests hold the reconnect thread in that window
/// (`onceReconnectedForTesting`), as a busy machine does.
@Suite struct DaemonReconnectionOrderTests {
  /// A stream's first sample of the new connection came before its `.reconnected` (the test
  /// holds the reconnect thread until the stream has one). Now `.reconnected` comes first.
  @Test func aStreamIsToldOfTheReconnectionBeforeTheNewConnectionsSamples() throws {
    let restart = try RestartingDaemon(label: "reconnected-first")
    defer { restart.close() }
    let (events, subscription) = try restart.streamThroughAStop()
    defer { subscription.cancel() }
    // Until the stream has an event of the new connection (5 s at most, then the reconnection
    // goes on, and the expectations below tell what came).
    restart.client.onceReconnectedForTesting = {
      let deadline = ProcessInfo.processInfo.systemUptime + 5
      while ProcessInfo.processInfo.systemUptime < deadline,
        sinceTheRestart(events).count < 2
      {
        usleep(1000)
      }
    }
    defer { restart.client.onceReconnectedForTesting = nil }
    try restart.startTheDaemon()
    try restart.feed("a sample and .reconnected after the restart") {
      let after = sinceTheRestart(events)
      return after.contains("sample") && after.contains("reconnected")
    }
    let after = sinceTheRestart(events)
    #expect(
      Array(after.prefix(3)) == ["disconnected", "reconnected", "sample"], "\(after.prefix(6))")
    #expect(after.filter { $0 == "disconnected" }.count == 1, "\(after.prefix(6))")
    #expect(after.filter { $0 == "reconnected" }.count == 1, "\(after.prefix(6))")
  }

  /// A stream subscribed on the new connection before the reconnection ended (the test subscribes
  /// it while the reconnect thread is held) was told `.reconnected` with the streams that had
  /// waited, though it had never been told `.disconnected`. Now only those are: the stream the
  /// daemon left, and one that joined while the client reconnected (told `.disconnected` when it
  /// subscribed).
  @Test func onlyStreamsToldOfTheDisconnectionAreToldOfTheReconnection() throws {
    let restart = try RestartingDaemon(label: "reconnected-only")
    defer { restart.close() }
    let client = restart.client
    let (left, first) = try restart.streamThroughAStop()
    defer { first.cancel() }
    let joined = Locked<[String]>([])
    let waiting = try client.subscribe(restart.request) { event in
      joined.withLock { $0.append(eventKind(event)) }
    }
    defer { waiting.cancel() }
    #expect(joined.withLock { $0 } == ["disconnected"])

    let fresh = Locked<[String]>([])
    let late = Locked<SourceSubscription?>(nil)
    let request = restart.request
    client.onceReconnectedForTesting = { [weak client] in
      let subscription = try? client?.subscribe(request) { event in
        fresh.withLock { $0.append(eventKind(event)) }
      }
      late.withLock { $0 = subscription }
    }
    defer { client.onceReconnectedForTesting = nil }
    defer { late.withLock { $0 }?.cancel() }
    try restart.startTheDaemon()
    try restart.feed("samples on all three streams after the restart") {
      let all = [sinceTheRestart(left), joined.withLock { $0 }, fresh.withLock { $0 }]
      return all.allSatisfy { $0.contains("sample") }
    }
    #expect(late.withLock { $0 } != nil, "the stream subscribed on the new connection")
    let told = fresh.withLock { $0 }
    #expect(!told.contains("reconnected") && !told.contains("disconnected"), "\(told.prefix(6))")
    for events in [sinceTheRestart(left), joined.withLock { $0 }] {
      #expect(
        Array(events.prefix(3)) == ["disconnected", "reconnected", "sample"], "\(events.prefix(6))")
    }
  }
}

/// `isHistoryAuthorized` while the daemon is away (`CMPedometer.authorizationStatus()` reads it
/// on the app's thread): each read made an attempt to connect, at most once a second, which
/// against a daemon that takes connections and never answers (stopped, stuck) took the whole
/// 0.5 s. Once an answer is known, a read now returns it at once and refreshes it in the
/// background; a change made while the client was away is seen by a later read. Bound: 0.25 s for
/// a read, for a loaded machine (the attempt took at least 0.5 s).
@Suite struct DaemonHistoryAuthorizationWhileAwayTests {
  @Test func readsWhileTheDaemonIsAwayAnswerAtOnceAndCatchUpOnceItIsBack() throws {
    let restart = try RestartingDaemon(label: "authorization-away")
    defer { restart.close() }
    let client = restart.client
    let socketPath = restart.harness.configuration.socketPath
    #expect(client.isHistoryAuthorized)
    #expect(client.isConnected, "the first read connects")

    try restart.stopTheDaemon()
    try waitUntil(seconds: 60, "the client to notice the daemon left") { !client.isConnected }
    // A stuck daemon at the path: connections queue, and no handshake is ever answered.
    let stuck = try UnixSocket.listen(path: socketPath)
    var durations: [Double] = []
    var answers: Set<Bool> = []
    // Reads every 50 ms for 2.5 s: several refreshes are due meanwhile.
    let end = ProcessInfo.processInfo.systemUptime + 2.5
    while ProcessInfo.processInfo.systemUptime < end {
      let start = ProcessInfo.processInfo.systemUptime
      answers.insert(client.isHistoryAuthorized)
      durations.append(ProcessInfo.processInfo.systemUptime - start)
      usleep(50_000)
    }
    // A refresh under way against the stuck daemon ends (0.6 s at most) before it goes.
    Thread.sleep(forTimeInterval: 1)
    stuck.close()
    unlink(socketPath)
    let slowest = durations.max() ?? 0
    #expect(slowest < 0.25, "the slowest of \(durations.count) reads took \(slowest) s")
    #expect(answers == [true], "the last answer, while the daemon was away")

    // The user denies history through another client while this one is away.
    try restart.startTheDaemon()
    let settings = DaemonClient(socketPath: socketPath, clientName: "motionctl")
    defer { settings.close() }
    // Waited for on this thread, not with `blocking`, whose task needs a thread of Swift
    // concurrency's pool: with `blocking` here, two full runs of MotionDaemonTests stalled for
    // 60 s, and another test's `blocking` timed out.
    try settings.waitForAnswer(to: .setHistoryAllowed(false), timeout: 60)
    #expect(!client.isConnected, "the change is made while the client is away")
    try waitUntil(seconds: 30, "a read to see the denial") { !client.isHistoryAuthorized }

    // A client that knows nothing yet asks on the reading thread: its first answer is right.
    let newcomer = DaemonClient(socketPath: socketPath)
    defer { newcomer.close() }
    #expect(!newcomer.isHistoryAuthorized)
  }
}

/// The kind of a stream event, for the expectations.
private func eventKind(_ event: DaemonStreamEvent) -> String {
  switch event {
  case .disconnected: "disconnected"
  case .reconnected: "reconnected"
  case .sample: "sample"
  default: "other"
  }
}

/// The events from the first `.disconnected` on.
private func sinceTheRestart(_ events: Locked<[String]>) -> [String] {
  events.withLock { list in
    list.firstIndex(of: "disconnected").map { Array(list[$0...]) } ?? []
  }
}

/// A hand-driven daemon and a client of it, for tests that stop and start the daemon.
private final class RestartingDaemon {
  let harness: HandDrivenDaemon
  let client: DaemonClient
  let request = DaemonStreamRequest(sensors: .accelerometer, rate: 50)
  private var daemon: MotionDaemon?

  init(label: String) throws {
    harness = HandDrivenDaemon(label: label)
    do {
      daemon = try harness.start()
    } catch {
      harness.removeDirectory()
      throw error
    }
    client = DaemonClient(socketPath: harness.configuration.socketPath)
  }

  /// Emits a sample every 20 ms of the source's clock (and of the test's) until `condition`.
  func feed(_ what: String, until condition: () -> Bool) throws {
    try waitUntil(seconds: 60, what) {
      let timestamp = max(1000, harness.source.latestTimestamp.withLock { $0 }) + 0.02
      harness.source.emit(
        .sample(MotionSample(timestamp: timestamp, accelerometer: SIMD3(0, 0, 9.81))))
      return condition()
    }
  }

  /// Subscribes a stream that records the kind of each event, lets it have a sample, and stops
  /// the daemon: returns once the stream was told the daemon left.
  func streamThroughAStop() throws -> (events: Locked<[String]>, subscription: SourceSubscription) {
    let events = Locked<[String]>([])
    let subscription = try client.subscribe(request) { event in
      events.withLock { $0.append(eventKind(event)) }
    }
    do {
      try feed("a sample before the restart") { events.withLock { $0 }.contains("sample") }
      try stopTheDaemon()
      try waitUntil(seconds: 60, "the stream to be told the daemon left") {
        events.withLock { $0 }.contains("disconnected")
      }
    } catch {
      subscription.cancel()
      throw error
    }
    return (events, subscription)
  }

  func stopTheDaemon() throws {
    daemon?.stop()
    daemon = nil
  }

  func startTheDaemon() throws {
    daemon = try harness.start()
  }

  /// Ends the client and the daemon, and removes the daemon's directory.
  func close() {
    client.close()
    daemon?.stop()
    harness.removeDirectory()
  }
}
