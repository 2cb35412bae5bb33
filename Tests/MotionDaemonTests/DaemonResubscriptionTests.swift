// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemon
import MotionDaemonClient
import MotionDaemonProtocol
import MotionSensors
import OpenCoreMotion
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A manager on the daemon whose update interval changes while the daemon is away (restarting)
/// subscribes again at the new rate. That subscription used to be refused at once (the daemon
/// was not reachable), delivered as a fatal failure, and put in the place of the one that was
/// waiting for the daemon to return: the updates stopped for good, while a run left alone came
/// back with the daemon.
@Suite struct DaemonResubscriptionTests {
  @Test func anIntervalChangedWhileTheDaemonIsAwayTakesEffectWhenItReturns() throws {
    let run = try AccelerometerRunOnDaemon(label: "resubscribe")
    defer { run.close() }
    try run.emitUntilDelivered("updates before the restart")

    try run.stopTheDaemon()
    // The run subscribes again, at 50 Hz, while no daemon answers.
    run.manager.accelerometerUpdateInterval = 0.02
    try run.startTheDaemon()

    try run.emitUntilDelivered("updates after the restart")
    #expect(run.manager.isAccelerometerActive)
    #expect(run.manager.accelerometerUpdateInterval == 0.02)
  }
}

/// A stream subscribed while the client reconnects is told it waits on the subscribing thread,
/// before `subscribe` returns (which `DaemonClient.subscribe(_:handler:)` documents: a caller
/// holding a lock its handler takes would wait for itself), and is subscribed by the next
/// connection.
@Suite struct DaemonWaitingStreamTests {
  @Test func aStreamSubscribedWhileTheClientReconnectsIsToldAtOnceAndResumes() throws {
    let left = try ClientLeftByItsDaemon(label: "waiting-stream")
    defer { left.close() }
    let (harness, client) = (left.harness, left.client)
    let request = DaemonStreamRequest(sensors: .accelerometer, rate: 50)

    // Each event, and whether `subscribe` had returned when it came.
    let events = Locked<[(event: DaemonStreamEvent, afterReturn: Bool)]>([])
    let returned = Locked(false)
    let second = try client.subscribe(request) { event in
      let afterReturn = returned.withLock { $0 }
      events.withLock { $0.append((event, afterReturn)) }
    }
    returned.withLock { $0 = true }
    defer { second.cancel() }
    let told = events.withLock { $0 }
    #expect(told.count == 1, "\(told)")
    if case .disconnected(let message)? = told.first?.event {
      #expect(message.contains("waits for the reconnection"), "\(message)")
    } else {
      Issue.record("the first event is not .disconnected: \(told)")
    }
    #expect(told.first?.afterReturn == false, "told after subscribe returned")

    try left.startTheDaemon()
    var timestamp = 1000.0
    try waitUntil(seconds: 60, "a sample on the stream subscribed while the daemon was away") {
      timestamp += 0.02
      harness.source.emit(
        .sample(MotionSample(timestamp: timestamp, accelerometer: SIMD3(0, 0, 9.81))))
      return events.withLock { $0.contains { if case .sample = $0.event { true } else { false } } }
    }
  }
}

/// A stream subscribed while the client reconnects was told `.disconnected` after `subscribe`
/// had let connections be made again: a reconnection in between delivered `.reconnected` (and
/// samples) first, and the late advisory then told the consumer that the daemon was gone while
/// samples came. The test holds `subscribe` in that gap until the reconnection has reached the
/// stream; the events, in order, were `reconnected, disconnected`.
@Suite struct DaemonWaitingStreamOrderTests {
  @Test func aReconnectionDuringTheSubscriptionComesAfterTheDisconnection() throws {
    let left = try ClientLeftByItsDaemon(label: "waiting-order")
    defer { left.close() }
    let client = left.client
    let request = DaemonStreamRequest(sensors: .accelerometer, rate: 50)

    let inGap = DispatchSemaphore(value: 0)
    let goOn = DispatchSemaphore(value: 0)
    defer { goOn.signal() }
    client.afterRegistrationForTesting = {
      inGap.signal()
      _ = goOn.wait(timeout: .now() + 120)
    }
    let events = Locked<[String]>([])
    let second = Locked<SourceSubscription?>(nil)
    let subscribed = DispatchSemaphore(value: 0)
    Thread {
      let subscription = try? client.subscribe(request) { event in
        switch event {
        case .disconnected: events.withLock { $0.append("disconnected") }
        case .reconnected: events.withLock { $0.append("reconnected") }
        default: break
        }
      }
      second.withLock { $0 = subscription }
      subscribed.signal()
    }.start()
    try #require(inGap.wait(timeout: .now() + 60) == .success, "subscribe never registered")
    client.afterRegistrationForTesting = nil
    try left.startTheDaemon()
    try waitUntil(seconds: 60, "the reconnection to reach the new stream") {
      events.withLock { $0.contains("reconnected") }
    }
    goOn.signal()
    try #require(subscribed.wait(timeout: .now() + 60) == .success, "subscribe did not return")
    defer { second.withLock { $0 }?.cancel() }
    #expect(second.withLock { $0 } != nil)
    #expect(events.withLock { $0 } == ["disconnected", "reconnected"])
  }
}

/// A stream subscribed within the reconnection interval of another one joining the reconnection
/// waits for the rest of that interval (pacing) before it returns. It used to wait before it was
/// registered: when the only other stream was cancelled meanwhile (a manager that resubscribes at
/// a new rate cancels its old stream), the reconnection found no stream left and ended, and the
/// new stream, finding no reconnection to join, tried to connect on the caller's thread (up to 2 s
/// against a daemon that never answers) and, the daemon being away, `subscribe` threw: the
/// updates stopped for good. The stream now waits registered, which keeps the reconnection going.
/// The test cancels the other stream in the pause and gives the reconnection 0.5 s to notice (it
/// looks for streams every 0.1 s), then brings the daemon back.
@Suite struct DaemonRestartWhileJoiningTests {
  @Test func aStreamPacedWhileTheOnlyOtherOneIsCancelledWaitsForTheDaemon() throws {
    let left = try ClientLeftByItsDaemon(label: "join-pacing")
    defer { left.close() }
    let (harness, client, first) = (left.harness, left.client, left.firstStream)
    let request = DaemonStreamRequest(sensors: .accelerometer, rate: 50)

    // When the pause's hook ended (boot clock, s), once it ran.
    let pauseEnded = Locked<Double?>(nil)
    let events = Locked<[DaemonStreamEvent]>([])
    var second: SourceSubscription?
    defer { second?.cancel() }
    // A join just before makes the next one paced, unless the machine took 0.1 s in between:
    // then again.
    for _ in 0..<20 where pauseEnded.withLock({ $0 }) == nil {
      second?.cancel()
      events.withLock { $0 = [] }
      try client.subscribe(request) { _ in }.cancel()
      client.whilePacingForTesting = {
        first.cancel()
        Thread.sleep(forTimeInterval: 0.5)
        pauseEnded.withLock { $0 = ProcessInfo.processInfo.systemUptime }
      }
      defer { client.whilePacingForTesting = nil }
      do {
        second = try client.subscribe(request) { event in events.withLock { $0.append(event) } }
      } catch {
        Issue.record("the paced subscription failed: \(error)")
        return
      }
    }
    let returned = ProcessInfo.processInfo.systemUptime
    let ended = try #require(pauseEnded.withLock { $0 }, "no subscription was paced")
    // The pause (0.1 s at most) follows the hook; 1 s for a loaded machine.
    #expect(returned - ended < 1, "subscribe returned \(returned - ended) s after the cancellation")
    let told = events.withLock { $0 }
    if told.count == 1, case .disconnected(let message) = told[0] {
      #expect(message.contains("waits for the reconnection"), "\(message)")
    } else {
      Issue.record("not told .disconnected alone before subscribe returned: \(told)")
    }

    try left.startTheDaemon()
    try expectResumedAfterOneDisconnection(
      events, feeding: harness.source, "the paced stream's samples and .reconnected")
  }
}

/// Feeds `source` (a daemon's, now answering) samples until `events` holds a sample and
/// `.reconnected`, then expects the stream's first events to be its one `.disconnected` and
/// `.reconnected`, which comes before the new connection's samples (since 2026-12-02;
/// `DaemonReconnectionOrderTests`).
func expectResumedAfterOneDisconnection(
  _ events: Locked<[DaemonStreamEvent]>, feeding source: HandDrivenSource, _ what: String,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  func kind(_ event: DaemonStreamEvent) -> String {
    switch event {
    case .disconnected: "disconnected"
    case .reconnected: "reconnected"
    case .sample: "sample"
    default: "other"
    }
  }
  let kinds = { events.withLock { $0.map(kind) } }
  var timestamp = 1000.0
  try waitUntil(seconds: 60, what) {
    timestamp += 0.02
    source.emit(.sample(MotionSample(timestamp: timestamp, accelerometer: SIMD3(0, 0, 9.81))))
    return kinds().contains("sample") && kinds().contains("reconnected")
  }
  #expect(
    Array(kinds().prefix(2)) == ["disconnected", "reconnected"], "\(kinds().prefix(5))",
    sourceLocation: sourceLocation)
  #expect(
    kinds().filter { $0 == "disconnected" }.count == 1, "\(kinds().prefix(5))",
    sourceLocation: sourceLocation)
}

/// A device-motion run on the daemon's fused motion that subscribes again (its interval changed)
/// holds two daemon streams for a moment, and a failure of the daemon's source reaches both: its
/// handler must see it once, as a raw run's does (`CMMotionManagerResubscriptionTests`). A real
/// overlap lasts microseconds; the test holds the new subscription in it while the source fails.
@Suite struct DaemonFusedMotionResubscriptionTests {
  @Test func aSourceFailureDuringAResubscriptionReachesTheDeviceMotionHandlerOnce() throws {
    let harness = HandDrivenDaemon(
      label: "fused-overlap", source: HandDrivenSource(sensors: .inertial))
    defer { harness.removeDirectory() }
    let daemon = try harness.start()
    defer { daemon.stop() }
    let source = try DaemonSource(socketPath: harness.configuration.socketPath)
    defer { source.client.close() }
    try #require(source.servesFusedMotion)
    // Used by the test's thread while this one waits for it (and not after a timeout).
    nonisolated(unsafe) let manager = CMMotionManager(source: source)
    manager.deviceMotionUpdateInterval = 0.01
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let errors = Locked<[String]>([])
    manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { _, error in
      if let error { errors.withLock { $0.append("\(error)") } }
    }
    defer { manager.stopDeviceMotionUpdates() }

    let inOverlap = DispatchSemaphore(value: 0)
    let goOn = DispatchSemaphore(value: 0)
    defer { goOn.signal() }
    source.client.afterRegistrationForTesting = {
      inOverlap.signal()
      _ = goOn.wait(timeout: .now() + 120)
    }
    let changed = DispatchSemaphore(value: 0)
    Thread {
      manager.deviceMotionUpdateInterval = 0.02
      changed.signal()
    }.start()
    try #require(inOverlap.wait(timeout: .now() + 60) == .success, "no second subscription")
    source.client.afterRegistrationForTesting = nil
    // The daemon takes the client's requests in order: its answer to this one comes once it has
    // the new subscription.
    let status = try source.client.waitForAnswer(to: .status, timeout: 60)
    let fused = status.clients.flatMap(\.subscriptions).filter(\.fusedMotion)
    #expect(fused.count == 2, "the old subscription and the one being made: \(fused)")
    harness.source.emit(.failure(SourceFailure(.malformedData, "one bad message", isFatal: false)))
    // Source events travel with the answers, in order: once this one is in, both streams have
    // handed the failure over.
    _ = try source.client.waitForAnswer(to: .status, timeout: 60)
    goOn.signal()
    try #require(changed.wait(timeout: .now() + 60) == .success, "the setter did not return")
    queue.waitUntilAllOperationsAreFinished()
    let reported = errors.withLock { $0 }
    #expect(reported.count == 1, "\(reported)")
  }
}

/// A handler that stops and starts its updates again at every error, while the daemon is away:
/// each start subscribed, failed to connect at once and told the handler, which started again,
/// some 15,000 times a second (29,258 errors in 2 s, measured), a busy loop for as long as the
/// daemon stayed away. Attempts to connect after a failed one are now paced by the client's
/// reconnection interval (0.1 s), so the loop turns about ten times a second. Bound: 60 errors
/// in the 2 s (a loaded machine only turns it slower).
@Suite struct DaemonRestartOnErrorTests {
  @Test func aHandlerRestartingAtEachErrorDoesNotSpinWhileTheDaemonIsAway() throws {
    let harness = HandDrivenDaemon(label: "restart-on-error")
    defer { harness.removeDirectory() }
    var daemon = try harness.start()
    defer { daemon.stop() }
    let source = try DaemonSource(socketPath: harness.configuration.socketPath)
    defer { source.client.close() }
    let manager = CMMotionManager(source: source)
    manager.accelerometerUpdateInterval = 0.01
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let errors = Locked(0)
    let isOver = Locked(false)
    // The handler refers to itself to start again: kept in a box the handler captures.
    final class HandlerBox: @unchecked Sendable {
      // Set once, before the first start; only read afterwards.
      var handler: CMAccelerometerHandler?
    }
    let box = HandlerBox()
    box.handler = { _, error in
      guard error != nil, !isOver.withLock({ $0 }), let handler = box.handler else { return }
      errors.withLock { $0 += 1 }
      manager.stopAccelerometerUpdates()
      manager.startAccelerometerUpdates(to: queue, withHandler: handler)
    }
    manager.startAccelerometerUpdates(to: queue, withHandler: box.handler!)
    defer {
      isOver.withLock { $0 = true }
      manager.stopAccelerometerUpdates()
      queue.waitUntilAllOperationsAreFinished()
      manager.stopAccelerometerUpdates()
    }
    try waitUntil(seconds: 60, "the client to connect") { source.client.isConnected }
    daemon.stop()
    try waitUntil(seconds: 60, "a first error after the daemon left") { errors.withLock { $0 } > 0 }
    let first = errors.withLock { $0 }
    Thread.sleep(forTimeInterval: 2)
    let during = errors.withLock { $0 } - first
    #expect(during < 60, "\(during) errors in 2 s while the daemon was away")
    daemon = try harness.start()
  }
}

/// Setting an update interval subscribes again at the new rate. While the daemon is away that
/// subscription used to try a connection of its own on the setter's thread before it joined the
/// streams waiting for the reconnection, and it waited for the reconnection's own attempts
/// first: with the daemon's socket path held by a process that never answers (a stuck or
/// stopped daemon), whose every attempt takes the 2 s handshake timeout, the setter took 2–4 s,
/// where Core Motion's returns at once (an app setting it on its main thread froze). Now the
/// first change takes about 0.1 ms and the next two, each within 0.1 s of the one before, 0.1 s
/// (subscriptions joining the reconnection are paced as attempts to connect are). Bound: 1 s for
/// each, for a loaded machine. When the daemon is back, the run resumes, subscribed at the last
/// rate only.
@Suite struct DaemonIntervalWhileAwayTests {
  @Test func settingAnIntervalWhileTheDaemonIsAwayReturnsPromptly() throws {
    let run = try AccelerometerRunOnDaemon(label: "interval-away")
    defer { run.close() }
    try run.emitUntilDelivered("updates before the daemon went away")

    try run.stopTheDaemon()
    // A stuck daemon at the path: connections queue, and no handshake is ever answered.
    let socketPath = run.harness.configuration.socketPath
    let stuck = try UnixSocket.listen(path: socketPath)
    var durations: [Double] = []
    for interval in [0.02, 0.03, 0.04] {
      let start = ProcessInfo.processInfo.systemUptime
      run.manager.accelerometerUpdateInterval = interval
      durations.append(ProcessInfo.processInfo.systemUptime - start)
    }
    stuck.close()
    unlink(socketPath)
    #expect(durations.allSatisfy { $0 < 1 }, "the setter took \(durations) s")

    try run.startTheDaemon()
    try run.emitUntilDelivered("updates after the daemon came back")
    #expect(run.manager.isAccelerometerActive)
    let status = try run.daemonSource.client.waitForAnswer(to: .status, timeout: 60)
    let rates = status.clients.flatMap(\.subscriptions).map(\.rate)
    #expect(rates == [25], "the daemon's subscriptions: \(rates) Hz")
  }
}

/// A manager running accelerometer updates at 100 Hz on a `DaemonSource` of a hand-driven daemon,
/// for the tests that take the daemon away under a run and bring it back.
private final class AccelerometerRunOnDaemon {
  let harness: HandDrivenDaemon
  private var daemon: MotionDaemon?
  let daemonSource: DaemonSource
  let manager: CMMotionManager
  private let timestamps = Locked<[Double]>([])
  /// The source's clock, s.
  private var timestamp = 1000.0

  init(label: String) throws {
    harness = HandDrivenDaemon(label: label)
    do {
      daemon = try harness.start()
      daemonSource = try DaemonSource(socketPath: harness.configuration.socketPath)
    } catch {
      daemon?.stop()
      harness.removeDirectory()
      throw error
    }
    manager = CMMotionManager(source: daemonSource)
    manager.accelerometerUpdateInterval = 0.01
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let timestamps = timestamps
    manager.startAccelerometerUpdates(to: queue) { data, _ in
      if let data { timestamps.withLock { $0.append(data.timestamp) } }
    }
  }

  /// Emits a sample every 20 ms until one emitted by this call arrives.
  func emitUntilDelivered(_ what: String) throws {
    let after = timestamp
    try waitUntil(seconds: 60, what) {
      timestamp += 0.02
      harness.source.emit(
        .sample(MotionSample(timestamp: timestamp, accelerometer: SIMD3(0, 0, 9.81))))
      return timestamps.withLock { $0.contains { $0 > after } }
    }
  }

  /// Stops the daemon and waits until the client has noticed.
  func stopTheDaemon() throws {
    daemon?.stop()
    daemon = nil
    try waitUntil(seconds: 60, "the client to notice the daemon left") {
      !daemonSource.client.isConnected
    }
  }

  /// Starts the daemon again and waits until the client has reconnected.
  func startTheDaemon() throws {
    daemon = try harness.start()
    try waitUntil(seconds: 60, "the client to reconnect") { daemonSource.client.isConnected }
  }

  /// Ends the updates, the client and the daemon, and removes the daemon's directory.
  func close() {
    manager.stopAccelerometerUpdates()
    daemonSource.client.close()
    daemon?.stop()
    harness.removeDirectory()
  }
}

/// A client whose daemon went away under its one accelerometer stream, once the client has
/// noticed: it is reconnecting. The tests subscribe more streams meanwhile and start the daemon
/// again.
private final class ClientLeftByItsDaemon {
  let harness: HandDrivenDaemon
  let client: DaemonClient
  /// The stream the daemon went away under (a test may cancel it before ``close()``).
  let firstStream: SourceSubscription
  private var daemon: MotionDaemon

  init(label: String) throws {
    harness = HandDrivenDaemon(label: label)
    do {
      daemon = try harness.start()
    } catch {
      harness.removeDirectory()
      throw error
    }
    client = DaemonClient(socketPath: harness.configuration.socketPath)
    do {
      firstStream = try client.subscribe(
        DaemonStreamRequest(sensors: .accelerometer, rate: 50)
      ) { _ in }
      daemon.stop()
      try waitUntil(seconds: 60, "the client to notice the daemon left") { !client.isConnected }
    } catch {
      client.close()
      daemon.stop()
      harness.removeDirectory()
      throw error
    }
  }

  /// Starts the daemon again (the client reconnects on its own).
  func startTheDaemon() throws {
    daemon = try harness.start()
  }

  /// Ends the first stream, the client and the daemon, and removes the daemon's directory.
  func close() {
    firstStream.cancel()
    client.close()
    daemon.stop()
    harness.removeDirectory()
  }
}
