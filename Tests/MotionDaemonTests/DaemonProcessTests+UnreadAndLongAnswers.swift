// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionConcurrency
@_spi(Benchmarks) import MotionDaemon
import MotionDaemonClient
import MotionDaemonProtocol
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Two limits of docs/Daemon.md ("Limits") that need a daemon process: a client that never reads
/// holds at most one unrequested authorization notice however often privacy changes, and a
/// recorded-accelerometer answer over the longest range (12 h) is complete and in order however
/// many store blocks, store reads and reply chunks it spans.
extension DaemonProcessTests {
  static func setPrivacyFrame(_ id: UInt64, allow: Bool = true) -> [UInt8] {
    frame(id) {
      var body = Opencoremotion_Daemon_V1_SetPrivacy()
      body.allow = allow
      $0.setPrivacy = body
    }
  }

  /// Every `setPrivacy` tells each other client the new authorization, unrequested. A client
  /// that reads nothing used to get one message queued per change, so another client changing
  /// privacy in a loop pushed its queue past the hard limit (4 × 1 KiB here) and had it
  /// disconnected after a few thousand requests. Now each client holds at most one pending
  /// notice, written with the value current when it goes out: after 40,000 changes the silent
  /// client is still connected, nothing was logged against it, and once it reads it finds far
  /// fewer notices than changes, the last one saying what the last change said.
  @Test func privacyChangedInALoopLeavesAClientThatDoesNotReadOneNotice() throws {
    let daemon = try DaemonProcess(
      source: "simulator:tour", extraArguments: ["--client-reply-bytes", "1024"])
    let statusFrame = Self.frame(1) { $0.status = Opencoremotion_Daemon_V1_StatusRequest() }
    // Admitted (it got an answer), then it reads nothing until the end.
    let silent = try RawConnection(path: daemon.socketPath)
    try silent.write(statusFrame)
    #expect(try silent.receive(seconds: 10)?.requestID == 1)

    let toggler = try RawConnection(path: daemon.socketPath)
    let acknowledged = Locked(0)
    let reader = Thread {
      while let message = try? toggler.receive(seconds: 30) {
        if case .ack = message.body { acknowledged.withLock { $0 += 1 } }
      }
    }
    reader.start()
    // Far more than the socket buffers hold: the old queue passed 4 KiB after a few thousand.
    let batch = 2_000
    var sent = 0
    while sent < 40_000 {
      var bytes: [UInt8] = []
      for offset in 1...batch { bytes += Self.setPrivacyFrame(UInt64(sent + offset) + 1) }
      try toggler.write(bytes)
      sent += batch
      try waitUntil(seconds: 30, "the daemon to answer \(sent) requests") {
        acknowledged.withLock { $0 } >= sent - batch / 2
      }
    }
    // The last change denies, so the notice the silent client reads last must say so.
    try toggler.write(Self.setPrivacyFrame(UInt64(sent) + 2, allow: false))
    sent += 1
    try waitUntil(seconds: 30, "every acknowledgement") { acknowledged.withLock { $0 } == sent }
    #expect(!daemon.log.contains("does not read its replies"))

    var notices = 0
    var lastAuthorized: Bool?
    // Until 5 s of quiet: the writer sends what it held as soon as the client reads, but a loaded
    // machine may take a while to run it.
    while let message = try silent.receive(seconds: 5) {
      guard case .authorization(let authorization) = message.body else { continue }
      #expect(message.requestID == 0)
      notices += 1
      lastAuthorized = authorization.historyAuthorized
    }
    print("privacy changed \(sent) times: the silent client read \(notices) notice(s)")
    #expect(notices >= 1)
    #expect(notices < sent / 2)
    #expect(lastAuthorized == false)
    // It is still served.
    try silent.write(Self.frame(7) { $0.status = Opencoremotion_Daemon_V1_StatusRequest() })
    #expect(try silent.receive(seconds: 10)?.requestID == 7)
    #expect(try daemon.terminate() == 0)
  }

  /// A store holding 12 h 20 min of 2 Hz samples in 60 s blocks, with an hour-long gap, written
  /// directly before the daemon starts (recording 12 h live is not an option). A query over the
  /// 12 h in the middle crosses about 660 blocks, 4 store reads of 20,000 samples each resumed
  /// where the last stopped, and 8 reply chunks, and must answer exactly the samples in the
  /// range, each once, in order, with the last chunk marked complete.
  @Test func aTwelveHourAccelerometerQueryAnswersEverySampleOnceInOrder() throws {
    let directory = URL(
      fileURLWithPath: "/tmp/motiond-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    let state = directory.appendingPathComponent("state/opencoremotion")
    // Recent enough for the 3-day retention; whole seconds, so every half second is exact.
    let to = Date().timeIntervalSince1970.rounded(.down) - 3_600
    let from = to - 43_200
    let gap = (from + 20_000)..<(from + 23_600)
    var batch = HistoryBatch()
    var date = from - 600
    while date <= to + 600 {
      if !gap.contains(date) {
        let index = Double(batch.recorded.count)
        batch.recorded.append(
          .init(
            timestamp: 10_000 + (date - from), date: date,
            acceleration: SIMD3(index.truncatingRemainder(dividingBy: 100) / 8, -1, 9.75)))
      }
      date += 0.5
    }
    let firstIdentifier: UInt64 = 5_000
    let store = try HistoryStore.open(directory: state.path, logger: Logger(label: "test"))
    try store.write(batch, firstIdentifier: firstIdentifier)
    store.close()
    let expected = batch.recorded.enumerated().filter {
      $0.element.date >= from && $0.element.date <= to
    }
    #expect(expected.count == 86_401 - 7_200)

    let daemon = try DaemonProcess(source: "simulator:tour", directory: directory)
    let connection = try RawConnection(path: daemon.socketPath)
    try connection.write(
      Self.frame(42) {
        var query = Opencoremotion_Daemon_V1_AccelerometerQuery()
        query.fromDate = from
        query.toDate = to
        $0.accelerometerQuery = query
      })
    var received: [Opencoremotion_Daemon_V1_RecordedSample] = []
    var chunks = 0
    while true {
      let message = try #require(
        try connection.receive(seconds: 60), "the answer stopped after \(received.count) samples")
      #expect(message.requestID == 42)
      guard case .recorded(let chunk) = message.body else {
        Issue.record("unexpected reply \(message)")
        break
      }
      chunks += 1
      #expect(chunk.samples.count <= 10_000)
      received += chunk.samples
      if chunk.complete { break }
    }
    print("12 h accelerometer query: \(received.count) samples in \(chunks) chunks")
    #expect(chunks >= 8)
    #expect(received.count == expected.count)
    #expect(
      received.map(\.identifier) == expected.map { firstIdentifier + UInt64($0.offset) },
      "identifiers missing, repeated or out of order")
    #expect(zip(received, received.dropFirst()).allSatisfy { $0.date < $1.date })
    for (answer, (_, sample)) in zip(received, expected) {
      guard
        abs(answer.date - sample.date) < 1e-5 && abs(answer.timestamp - sample.timestamp) < 1e-5
          && abs(answer.acceleration.x - sample.acceleration.x) < 1e-5
      else {
        Issue.record("sample \(answer.identifier) differs: \(answer) against \(sample)")
        break
      }
    }
    // The connection is still usable after the long answer.
    try connection.write(Self.frame(43) { $0.status = Opencoremotion_Daemon_V1_StatusRequest() })
    #expect(try connection.receive(seconds: 10)?.requestID == 43)
    #expect(try daemon.terminate() == 0)
  }
}
