// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemonClient
import MotionDaemonProtocol
import MotionMath
import MotionSensors
import Testing
import _MotionTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Multi-process tests: a real `motiond` on the simulator in temporary XDG directories, real
/// client processes. Every wait has a deadline; nothing asserts on a sleep.
@Suite(.serialized) struct DaemonProcessTests {
  /// Collects the events of one in-test subscription.
  final class Collector: @unchecked Sendable {
    // Sendable because every property is only touched under `lock`.
    private let lock = NSLock()
    private var samples: [MotionSample] = []
    private var dropped: UInt64 = 0
    private var disconnects = 0
    private var reconnects = 0
    func handle(_ event: DaemonStreamEvent) {
      lock.withLock {
        switch event {
        case .sample(let sample, _): samples.append(sample)
        case .dropped(let count): dropped += count
        case .disconnected: disconnects += 1
        case .reconnected: reconnects += 1
        default: break
        }
      }
    }
    var sampleCount: Int { lock.withLock { samples.count } }
    var allSamples: [MotionSample] { lock.withLock { samples } }
    var droppedCount: UInt64 { lock.withLock { dropped } }
    var disconnectCount: Int { lock.withLock { disconnects } }
    var reconnectCount: Int { lock.withLock { reconnects } }
  }

  @Test func twoClientProgramsGetExactlyWhatAnInProcessManagerGets() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let environment = ["COREMOTION_SOURCE": "daemon:" + daemon.socketPath]
    let fast = try ChildProgram(
      "DaemonClientExample", arguments: ["0.01", "60"], environment: environment)
    let slow = try ChildProgram(
      "DaemonClientExample", arguments: ["0.05", "15"], environment: environment)
    try fast.waitForExit(seconds: 30)
    try slow.waitForExit(seconds: 30)
    #expect(fast.process.terminationStatus == 0)
    #expect(slow.process.terminationStatus == 0)

    // The same scenario in-process: the simulator is seeded, so every delivered sample must equal
    // the in-process sample with the same timestamp, bit for bit (%.17g round-trips doubles).
    var stream = SimulatedSensorStream(scenario: try Scenario.named("tour"))
    var reference: [Double: SIMD3<Double>] = [:]
    while let sample = try stream.next(), sample.timestamp < 120 {
      if let a = sample.accelerometer {
        reference[sample.timestamp] = Units.coreMotionAcceleration(fromSpecificForce: a)
      }
    }
    for (program, interval, count) in [(fast, 0.01, 60), (slow, 0.05, 15)] {
      let rows = program.lines.filter { $0.hasPrefix("acc ") }.map {
        $0.split(separator: " ").dropFirst().compactMap { Double($0) }
      }
      #expect(rows.count == count)
      for row in rows {
        let expected = try #require(
          reference[row[0]], "timestamp \(row[0]) is not a simulator sample")
        #expect(SIMD3(row[1], row[2], row[3]) == expected)
      }
      // Each client gets its own interval (judged by timestamps; tolerance half a 100 Hz period).
      let spacings = zip(rows.dropFirst(), rows).map { $0[0] - $1[0] }
      let mean = spacings.reduce(0, +) / Double(max(1, spacings.count))
      #expect(abs(mean - interval) < 0.005, "mean spacing \(mean) s for interval \(interval) s")
    }
    try daemon.terminate()
    #expect(daemon.log.contains("motiond stopped"))
  }

  /// Runs `motionctl ARGUMENTS` to completion (30 s at most); returns its status and output.
  func motionctl(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let run = try ChildProcess.run(
      DaemonProcess.productsDirectory.appendingPathComponent("motionctl"), arguments: arguments,
      timeout: 30)
    if run.timedOut {
      throw DaemonProcess.Failure(description: "motionctl \(arguments) did not exit within 30 s")
    }
    return (run.status, run.standardOutput + run.standardError)
  }

  @Test func motionctlShowsStatusAndSetsPrivacy() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let client = DaemonClient(socketPath: daemon.socketPath, clientName: "listener")
    let subscription = try client.subscribe(
      DaemonStreamRequest(sensors: .accelerometer, rate: 25, pedometer: true)
    ) { _ in }
    try waitUntil(seconds: 30, "the subscription to register") {
      try blocking { try await client.status() }.clients.contains { !$0.subscriptions.isEmpty }
    }
    let status = try motionctl(["status", "--socket", daemon.socketPath])
    #expect(status.status == 0)
    #expect(status.output.contains("source:      simulator:tour"))
    #expect(status.output.contains("listener"))
    #expect(status.output.contains("accelerometer @ 25 Hz, pedometer"))
    #expect(status.output.contains("history:     recording"))
    let deny = try motionctl(["privacy", "deny", "--socket", daemon.socketPath])
    #expect(deny.status == 0)
    #expect(try blocking { try await client.status() }.historyState == "denied")
    let allow = try motionctl(["privacy", "allow", "--socket", daemon.socketPath])
    #expect(allow.status == 0)
    #expect(try blocking { try await client.status() }.historyState == "recording")
    subscription.cancel()
    client.close()
    try daemon.terminate()
    // No daemon: a clear message and a failing status, not a hang.
    let absent = try motionctl(["status", "--socket", daemon.socketPath])
    #expect(absent.status != 0)
    #expect(absent.output.contains("not running"))
  }

  /// Denying history closes the store while queries on other connections may be reading it;
  /// they used to read it unguarded and crashed the daemon inside SQLite within seconds.
  @Test func privacyChangesRacingQueriesLeaveTheDaemonRunning() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let toggler = DaemonClient(socketPath: daemon.socketPath, clientName: "toggler")
    let reader = DaemonClient(socketPath: daemon.socketPath, clientName: "reader")
    // At least 6 s and more than 10 changes: a loaded machine gets the changes it needs,
    // within 60 s.
    let end = Date().addingTimeInterval(6)
    let deadline = Date().addingTimeInterval(60)
    let togglerDone = Locked(false)
    let rounds = try blocking {
      try await withThrowingTaskGroup(of: Int.self) { group in
        group.addTask {
          var allowed = false
          var rounds = 0
          defer { togglerDone.withLock { $0 = true } }
          while Date() < end || (rounds <= 10 && Date() < deadline) {
            try await toggler.setHistoryAllowed(allowed)
            allowed.toggle()
            rounds += 1
          }
          try await toggler.setHistoryAllowed(true)
          return rounds
        }
        group.addTask {
          while !togglerDone.withLock({ $0 }) {
            let now = Date()
            // Failures (not authorized, no data) are expected answers here; a crash is not.
            _ = try? await reader.status()
            _ = try? await reader.activities(from: now.addingTimeInterval(-600), to: now)
            _ = try? await reader.recordedAccelerometer(from: now.addingTimeInterval(-5), to: now)
          }
          return 0
        }
        return try await group.reduce(0, +)
      }
    }
    #expect(rounds > 10, "only \(rounds) privacy changes in 60 s")
    #expect(try blocking { try await reader.status() }.historyState == "recording")
    toggler.close()
    reader.close()
    #expect(try daemon.terminate() == 0)
  }

  @Test func appsUseTheDaemonByDefaultWhenItsSocketExists() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    // COREMOTION_SOURCE unset, the socket found through MOTIOND_SOCKET (as through
    // XDG_RUNTIME_DIR).
    let app = try ChildProgram(
      "DaemonClientExample", arguments: ["0.02", "10"],
      environment: ["MOTIOND_SOCKET": daemon.socketPath],
      removing: ["COREMOTION_SOURCE"])
    try app.waitForExit(seconds: 30)
    #expect(app.lines.filter { $0.hasPrefix("acc ") }.count == 10)
    #expect(daemon.log.contains("client"))
    try daemon.terminate()
  }

  @Test func socketAndStoreArePrivate() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let client = DaemonClient(socketPath: daemon.socketPath)
    try client.connect()
    _ = try blocking { try await client.recordAccelerometer(duration: 5) }
    try waitUntil(seconds: 30, "history to be written") {
      (try? blocking { try await client.status() }.historyBytes) ?? 0 > 0
    }
    func mode(_ path: String) throws -> Int {
      try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
    #expect(try mode(daemon.socketPath) == 0o600)
    #expect(try mode((daemon.socketPath as NSString).deletingLastPathComponent) == 0o700)
    #expect(try mode(daemon.stateDirectory) == 0o700)
    let store = daemon.stateDirectory + "/history.sqlite"
    #expect(try mode(store) == 0o600)
    for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: store + suffix) {
      #expect(try mode(store + suffix) == 0o600, "\(suffix)")
    }
    client.close()
    try daemon.terminate()
  }

  @Test func aClientKilledMidStreamIsDroppedAndOthersContinue() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let observer = DaemonClient(socketPath: daemon.socketPath, clientName: "observer")
    let collector = Collector()
    let subscription = try observer.subscribe(
      DaemonStreamRequest(sensors: .accelerometer, rate: 50)
    ) { collector.handle($0) }
    let victim = try ChildProgram(
      "DaemonClientExample", arguments: ["0.01", "100000"],
      environment: ["COREMOTION_SOURCE": "daemon:" + daemon.socketPath])
    try waitUntil(seconds: 20, "the victim to receive samples") { victim.lines.count >= 10 }
    let victimID = Int(victim.process.processIdentifier)
    try waitUntil(seconds: 30, "the victim in the client list") {
      try blocking { try await observer.status() }.clients.contains { $0.processID == victimID }
    }
    kill(victim.process.processIdentifier, SIGKILL)
    try waitUntil(seconds: 30, "the daemon to drop the killed client") {
      try !blocking { try await observer.status() }.clients.contains { $0.processID == victimID }
    }
    let before = collector.sampleCount
    try waitUntil(seconds: 30, "the observer to keep receiving") {
      collector.sampleCount >= before + 25
    }
    subscription.cancel()
    observer.close()
    try daemon.terminate()
  }

  @Test func aClientThatNeverReadsIsBoundedAndOthersAreUnaffected() throws {
    // 20× real time: ≈ 2000 samples/s fill the stalled client's socket buffer within seconds.
    let daemon = try DaemonProcess(
      source: "simulator:tour?speed=20", extraArguments: ["--client-queue", "256"])
    // The stalled client: subscribes and never reads.
    let stalled = try UnixSocket.connect(path: daemon.socketPath)
    var hello = WireClientMessage()
    hello.requestID = 1
    hello.hello = Opencoremotion_Daemon_V1_Hello()
    var subscribe = WireClientMessage()
    subscribe.requestID = 2
    var body = Opencoremotion_Daemon_V1_Subscribe()
    body.sensors = 0x1f
    body.rateHz = 1000
    subscribe.subscribe = body
    try stalled.write(Wire.frame(hello) + Wire.frame(subscribe))

    let healthy = DaemonClient(socketPath: daemon.socketPath, clientName: "healthy")
    let collector = Collector()
    // 10 Hz by sample timestamps = 200 messages/s at 20× real time.
    let subscription = try healthy.subscribe(DaemonStreamRequest(sensors: .nineAxis, rate: 10)) {
      collector.handle($0)
    }
    try waitUntil(seconds: 30, "the stalled client's drops to be counted") {
      try blocking { try await healthy.status() }.clients.contains { $0.dropped > 0 }
    }
    let status = try blocking { try await healthy.status() }
    let stalledStatus = try #require(status.clients.first { $0.dropped > 0 })
    #expect(stalledStatus.queued <= 256)
    // The healthy client lost nothing and gets 10 Hz by timestamps on average (the decimator
    // picks the sample nearest each due time from a simulator whose timestamps jitter, so single
    // gaps vary; none may be a lost sample's double).
    let before = collector.sampleCount
    try waitUntil(seconds: 20, "the healthy client to keep receiving") {
      collector.sampleCount >= before + 100
    }
    #expect(collector.droppedCount == 0)
    let times = collector.allSamples.map(\.timestamp)
    let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
    let mean = (times.last! - times.first!) / Double(times.count - 1)
    #expect(abs(mean - 0.1) < 0.005, "mean gap \(mean) s")
    #expect(
      gaps.allSatisfy { $0 > 0.05 && $0 < 0.15 }, "gaps \(gaps.min() ?? 0)…\(gaps.max() ?? 0) s")
    subscription.cancel()
    healthy.close()
    stalled.close()
    try daemon.terminate()
  }

  @Test func clientsReconnectWhenTheDaemonComesBack() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let client = DaemonClient(socketPath: daemon.socketPath, clientName: "survivor")
    let collector = Collector()
    let subscription = try client.subscribe(DaemonStreamRequest(sensors: .accelerometer, rate: 50))
    { collector.handle($0) }
    try waitUntil(seconds: 30, "samples") { collector.sampleCount >= 10 }
    #expect(try daemon.terminate() == 0)
    try waitUntil(seconds: 30, "the disconnection to be reported") {
      collector.disconnectCount == 1
    }
    // A query while the daemon is away fails with CMErrorUnknown semantics, not a hang.
    #expect(throws: DaemonError.self) { try blocking { try await client.status() } }
    try daemon.restart()
    try waitUntil(seconds: 20, "the client to reconnect") { collector.reconnectCount == 1 }
    let before = collector.sampleCount
    try waitUntil(seconds: 30, "samples after reconnecting") {
      collector.sampleCount >= before + 10
    }
    subscription.cancel()
    client.close()
    try daemon.terminate()
  }

  /// A `kill -9` loses at most what arrived since the last commit: one flush interval (1 s by
  /// default; 0.25 s here, so that a loaded machine's late timer has a second of slack within the
  /// bound).
  @Test func killDuringRecordingLosesAtMostTheLastSecond() throws {
    let daemon = try DaemonProcess(
      source: "simulator:tour", extraArguments: ["--flush-interval", "0.25"])
    let client = DaemonClient(socketPath: daemon.socketPath)
    _ = try blocking { try await client.recordAccelerometer(duration: 600) }
    let start = Date()
    try waitUntil(seconds: 20, "2 s of recording") { Date().timeIntervalSince(start) >= 2.5 }
    client.close()
    let killed = try daemon.killHard()
    // The store opens after the crash and holds everything up to the last commit.
    try daemon.restart()
    let reader = DaemonClient(socketPath: daemon.socketPath)
    let samples = try blocking {
      try await reader.recordedAccelerometer(
        from: start.addingTimeInterval(-5), to: killed.addingTimeInterval(5))
    }
    let newest = try #require(samples.last).startDate
    let missing = killed.timeIntervalSince(newest)
    print(
      "kill -9 during recording: \(samples.count) samples kept, newest \(missing) s before the kill"
    )
    // ≤ 0.25 s by design (a commit every 0.25 s); +1 s for scheduling on a loaded 2-core machine.
    #expect(missing <= 1.25)
    // Identifiers are consecutive: no sample of a committed batch was lost or duplicated.
    let identifiers = samples.map(\.identifier)
    #expect(zip(identifiers.dropFirst(), identifiers).allSatisfy { $0 == $1 + 1 })
    reader.close()
    try daemon.terminate()
  }

  @Test func aFullDiskPausesHistoryWhileLiveStreamsGoOn() throws {
    let daemon = try DaemonProcess(
      source: "simulator:tour",
      extraArguments: ["--history-max-pages", "12", "--flush-interval", "0.2"])
    let client = DaemonClient(socketPath: daemon.socketPath)
    let collector = Collector()
    let subscription = try client.subscribe(DaemonStreamRequest(sensors: .accelerometer, rate: 100))
    { collector.handle($0) }
    _ = try blocking { try await client.recordAccelerometer(duration: 600) }
    try waitUntil(seconds: 30, "history to pause on a full disk") {
      try blocking { try await client.status() }.historyState == "paused: disk full"
    }
    let before = collector.sampleCount
    try waitUntil(seconds: 30, "live samples while history is paused") {
      collector.sampleCount >= before + 100
    }
    #expect(daemon.log.contains("motion history paused (disk full)"))
    subscription.cancel()
    client.close()
    try daemon.terminate()
  }

  @Test func denyingPrivacyDeletesHistoryAndQueriesFailNotAuthorized() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let client = DaemonClient(socketPath: daemon.socketPath)
    try client.connect()
    let now = Date()
    _ = try blocking {
      try await client.pedometerTotals(from: now.addingTimeInterval(-60), to: now)
    }
    try blocking { try await client.setHistoryAllowed(false) }
    #expect(!FileManager.default.fileExists(atPath: daemon.stateDirectory + "/history.sqlite"))
    do {
      _ = try blocking {
        try await client.pedometerTotals(from: now.addingTimeInterval(-60), to: now)
      }
      Issue.record("a query succeeded while history is denied")
    } catch let error as DaemonError {
      #expect(error.code == .notAuthorized)
      #expect(error.coreMotionErrorCode == 105)
    }
    let status = try blocking { try await client.status() }
    #expect(!status.historyAuthorized)
    // The choice survives a restart.
    client.close()
    try daemon.terminate()
    try daemon.restart()
    let again = DaemonClient(socketPath: daemon.socketPath)
    #expect(try blocking { try await again.status() }.historyState == "denied")
    try blocking { try await again.setHistoryAllowed(true) }
    _ = try blocking { try await again.pedometerTotals(from: now.addingTimeInterval(-60), to: now) }
    again.close()
    try daemon.terminate()
  }
}

extension DaemonProcessTests {
  /// A 20 Hz subscription to a 100 Hz source gets every fifth sample, 50 ms apart each time (not
  /// only on average): the daemon's decimation sees every timestamp, delivered or not. The same
  /// for the daemon's fused motion at 20 Hz.
  @Test func aSubscriptionIsDecimatedEvenlyNotOnlyOnAverage() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let client = DaemonClient(socketPath: daemon.socketPath, clientName: "even")
    let collector = Collector()
    let subscription = try client.subscribe(DaemonStreamRequest(sensors: .accelerometer, rate: 20))
    { collector.handle($0) }
    let source = try DaemonSource(socketPath: daemon.socketPath)
    let estimates = EstimateCollector()
    let fused = source.subscribeFusedMotion(rate: 20) { estimates.handle($0) }
    try waitUntil(seconds: 20, "40 samples and 40 estimates") {
      collector.sampleCount >= 40 && estimates.all.count >= 40
    }
    subscription.cancel()
    fused.cancel()
    // Half a source period (5 ms) either way.
    for (name, times) in [
      ("samples", collector.allSamples.map(\.timestamp)),
      ("estimates", estimates.all.map(\.timestamp)),
    ] {
      let spacings = zip(times.dropFirst(), times).map { $0 - $1 }
      #expect(spacings.allSatisfy { abs($0 - 0.05) < 0.005 }, "\(name): spacings \(spacings)")
    }
    client.close()
    try daemon.terminate()
  }
}
