// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import MotionDaemonProtocol
import Testing
import _MotionTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon against hostile or unlucky conditions (docs/Daemon.md, "Limits"; the attack report
/// of 2026-11-26): clients that never read, half-sent frames, too many connections or
/// subscriptions, a locked or odd store, a second daemon, someone's file at the socket path.
/// In the serialized `DaemonProcessTests`: each test runs a daemon, and the 2-core machine
/// does not take more beside the other suites.
extension DaemonProcessTests {
  static func frame(_ id: UInt64, _ fill: (inout WireClientMessage) -> Void) -> [UInt8] {
    var message = WireClientMessage()
    message.requestID = id
    fill(&message)
    return Wire.frame(message)
  }

  /// A client that sends thousands of accelerometer queries and reads nothing: the daemon stops
  /// reading its requests once the unread replies pass the limit (so its writes stall), other
  /// clients are served meanwhile, and when it reads at last it gets every answer, complete.
  @Test func aClientThatDoesNotReadItsRepliesIsNoLongerReadAndLaterGetsThemAll() throws {
    let daemon = try DaemonProcess(
      source: "simulator:tour", extraArguments: ["--client-reply-bytes", "65536"])
    let client = DaemonClient(socketPath: daemon.socketPath, clientName: "observer")
    let start = Date()
    _ = try blocking { try await client.recordAccelerometer(duration: 600) }
    try waitUntil(seconds: 30, "100 recorded samples") {
      try blocking {
        try await client.recordedAccelerometer(from: start.addingTimeInterval(-5), to: Date())
      }.count >= 100
    }
    let query = { (id: UInt64) in
      Self.frame(id) {
        var body = Opencoremotion_Daemon_V1_AccelerometerQuery()
        body.fromDate = start.timeIntervalSince1970 - 5
        body.toDate = start.timeIntervalSince1970 + 3600
        $0.accelerometerQuery = body
      }
    }
    let flooder = try RawConnection(path: daemon.socketPath)
    // A small send buffer: fewer queries in flight in the kernel, so fewer answers to read.
    var sendBuffer: Int32 = 4096
    setsockopt(
      flooder.descriptor, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
    // Up to 100 000 queries (2 MB), far more than the kernel's socket buffers hold.
    var sent = 0
    var pending: ArraySlice<UInt8> = []
    var stalled = false
    while sent < 100_000 || !pending.isEmpty {
      if pending.isEmpty {
        sent += 1
        pending = query(UInt64(sent))[...]
      }
      let written = flooder.writeAvailable(pending)
      pending = pending.dropFirst(written)
      if written == 0, !flooder.waitWritable(seconds: 3) {
        stalled = true
        break
      }
    }
    #expect(stalled, "the daemon read all \(sent) queries of a client that reads nothing")
    print("backpressure: the daemon stopped reading after \(sent) queries")
    // Another client is served while the flooder's replies wait.
    #expect(try blocking { try await client.status() }.clients.count >= 2)
    // The rest of the last frame, then every answer.
    let remainder = Array(pending)
    let writer = Thread { try? flooder.write(remainder) }
    writer.start()
    var completed = 0
    var lastID: UInt64 = 0
    while completed < sent {
      let message = try #require(
        try flooder.receive(seconds: 60), "answer \(completed + 1) of \(sent) did not arrive")
      guard case .recorded(let chunk) = message.body else {
        Issue.record("unexpected reply \(message)")
        break
      }
      #expect(message.requestID >= lastID)
      lastID = message.requestID
      if chunk.complete { completed += 1 }
    }
    #expect(completed == sent)
    client.close()
    #expect(try daemon.terminate() == 0)
  }

  /// A frame begun and never finished is dropped at its deadline; an idle connection is not.
  @Test func aHalfSentFrameIsDroppedAtItsDeadlineButAnIdleClientIsNot() throws {
    let daemon = try DaemonProcess(
      source: "simulator:tour", extraArguments: ["--frame-deadline", "1"])
    let idle = try RawConnection(path: daemon.socketPath)
    let half = try RawConnection(path: daemon.socketPath)
    // Announces 1 MiB and sends 1000 bytes of it.
    var bytes: [UInt8] = [0x80, 0x80, 0x40]
    bytes += [UInt8](repeating: 0, count: 1000)
    try half.write(bytes)
    #expect(half.isClosedByPeer(within: 30))
    #expect(daemon.log.contains("was not completed within"))
    // The idle connection outlived the deadline and still gets answers.
    try idle.write(Self.frame(7) { $0.status = Opencoremotion_Daemon_V1_StatusRequest() })
    let reply = try #require(try idle.receive())
    #expect(reply.requestID == 7)
    #expect(try daemon.terminate() == 0)
  }

  /// Beyond `--max-clients` connections a newcomer gets an error and is closed, with a log line;
  /// once one leaves, connections are accepted again.
  @Test func connectionsBeyondTheLimitAreRefused() throws {
    let daemon = try DaemonProcess(
      source: "simulator:tour", extraArguments: ["--max-clients", "3"])
    let statusRequest = Self.frame(1) { $0.status = Opencoremotion_Daemon_V1_StatusRequest() }
    // A connection the daemon admitted (it answers a status request), or nil when refused.
    func admitted() -> RawConnection? {
      guard let candidate = try? RawConnection(path: daemon.socketPath) else { return nil }
      try? candidate.write(statusRequest)
      guard let reply = try? candidate.receive(seconds: 5), case .status = reply.body else {
        return nil
      }
      return candidate
    }
    // The launch's probe clients may still hold places for a moment: fill the three places.
    var held: [RawConnection] = []
    try waitUntil(seconds: 30, "three admitted connections") {
      if let connection = admitted() { held.append(connection) }
      return held.count == 3
    }
    let refused = try RawConnection(path: daemon.socketPath)
    let message = try #require(try refused.receive())
    guard case .error(let error) = message.body else {
      Issue.record("expected an error, got \(message)")
      return
    }
    #expect(error.code == .notAvailable)
    #expect(error.message.contains("at most 3 clients"))
    #expect(refused.isClosedByPeer(within: 10))
    #expect(daemon.log.contains("refusing connections"))
    held.removeLast()
    try waitUntil(seconds: 30, "a connection to be accepted again") { admitted() != nil }
    held.removeAll()
    #expect(try daemon.terminate() == 0)
  }

  /// Sends `ids` as altitude subscriptions at 1 Hz on `connection`, in one write, and returns
  /// the answer to each.
  static func subscribe(
    _ ids: ClosedRange<UInt64>, on connection: RawConnection
  ) throws -> [UInt64: WireServerMessage] {
    var requests: [UInt8] = []
    for id in ids {
      requests += frame(id) {
        var body = Opencoremotion_Daemon_V1_Subscribe()
        body.rateHz = 1
        body.altitude = true
        $0.subscribe = body
      }
    }
    try connection.write(requests)
    var answers: [UInt64: WireServerMessage] = [:]
    while answers.count < ids.count {
      let message = try #require(try connection.receive(), "\(answers.count) answers only")
      if case .live = message.body { continue }
      if ids.contains(message.requestID) { answers[message.requestID] = message }
    }
    return answers
  }

  static func isAcknowledged(_ answer: WireServerMessage?) -> Bool {
    if case .ack = answer?.body { return true }
    return false
  }

  /// The 65th subscription of a connection is refused with a clear error; the others stand.
  @Test func subscriptionsPerClientAreCapped() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let connection = try RawConnection(path: daemon.socketPath)
    let answers = try Self.subscribe(1...65, on: connection)
    for id in UInt64(1)...64 where !Self.isAcknowledged(answers[id]) {
      Issue.record("subscription \(id) was not acknowledged: \(String(describing: answers[id]))")
    }
    guard case .error(let error) = answers[65]?.body else {
      Issue.record("the 65th subscription was not refused")
      return
    }
    #expect(error.code == .notAvailable)
    #expect(error.message.contains("too many subscriptions"))
    #expect(try daemon.terminate() == 0)
  }

  /// A client name is kept to 200 Unicode scalars, not 200 Characters: one Character can be a
  /// letter followed by a million combining marks, and the name used to be kept whole (up to the
  /// 16 MiB frame) and copied into every status answer, which then exceeded every client's limit.
  @Test func aClientNameOfOneHugeCharacterIsCut() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let hostile = try RawConnection(path: daemon.socketPath)
    let name = "a" + String(repeating: "\u{301}", count: 1_000_000)
    #expect(name.count == 1)
    try hostile.write(
      Self.frame(1) {
        var hello = Opencoremotion_Daemon_V1_Hello()
        hello.protocolVersion = Wire.protocolVersion
        hello.clientName = name
        $0.hello = hello
      })
    _ = try #require(try hostile.receive(), "no answer to the Hello")
    let observer = DaemonClient(socketPath: daemon.socketPath, clientName: "observer")
    let status = try blocking { try await observer.status() }
    let names = status.clients.map(\.name)
    #expect(names.contains("observer"))
    #expect(names.allSatisfy { $0.unicodeScalars.count <= 200 }, "\(names.map(\.utf8.count))")
    observer.close()
    #expect(try daemon.terminate() == 0)
  }

  /// The daemon's subscriptions are capped in all, not only per connection (128 connections of
  /// 64 each would be 8,192 on the delivery thread): past the limit a new one is refused with a
  /// clear error, a replacement is still accepted, and a connection that leaves frees its share.
  @Test func subscriptionsOfAllClientsAreCapped() throws {
    let daemon = try DaemonProcess(
      source: "simulator:tour", extraArguments: ["--max-total-subscriptions", "5"])
    let first = try RawConnection(path: daemon.socketPath)
    let firstAnswers = try Self.subscribe(1...3, on: first)
    #expect((UInt64(1)...3).allSatisfy { Self.isAcknowledged(firstAnswers[$0]) })
    var second: RawConnection? = try RawConnection(path: daemon.socketPath)
    let secondAnswers = try Self.subscribe(1...3, on: second!)
    #expect(Self.isAcknowledged(secondAnswers[1]) && Self.isAcknowledged(secondAnswers[2]))
    guard case .error(let error) = secondAnswers[3]?.body else {
      Issue.record(
        "the sixth subscription was not refused: \(String(describing: secondAnswers[3]))")
      return
    }
    #expect(error.code == .notAvailable)
    #expect(error.message.contains("all clients together"))
    // Replacing a subscription adds no work: accepted at the limit.
    #expect(Self.isAcknowledged(try Self.subscribe(1...1, on: first)[1]))
    // The second connection leaves: its two subscriptions are free again.
    second = nil
    try waitUntil(seconds: 30, "the second connection's subscriptions to be freed") {
      let answer = try Self.subscribe(4...4, on: first)[4]
      return Self.isAcknowledged(answer)
    }
    #expect(try daemon.terminate() == 0)
  }

  /// A store locked by another process when the daemon starts is opened once the lock is gone.
  @Test func aStoreLockedAtStartIsOpenedWhenTheLockIsReleased() throws {
    let directory = URL(
      fileURLWithPath: "/tmp/motiond-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    let state = directory.appendingPathComponent("state/opencoremotion")
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    // SQLite's own lock: a POSIX write lock on its lock bytes (the pending, reserved and shared
    // bytes at 1 GiB), as a connection in an EXCLUSIVE transaction holds them.
    let locker = open(state.appendingPathComponent("history.sqlite").path, O_RDWR | O_CREAT, 0o600)
    var lock = flock()
    lock.l_type = Int16(F_WRLCK)
    lock.l_whence = Int16(SEEK_SET)
    lock.l_start = 0x4000_0000
    lock.l_len = 512
    #expect(fcntl(locker, F_SETLK, &lock) == 0)
    let daemon = try DaemonProcess(
      source: "simulator:tour", extraArguments: ["--retry-interval", "0.5"], directory: directory)
    let client = DaemonClient(socketPath: daemon.socketPath)
    #expect(try blocking { try await client.status() }.historyState.hasPrefix("unavailable"))
    // The daemon serves while it opens the store (SQLite waits up to 2 s for the lock): the open
    // has failed, and is retried, before the lock goes.
    try waitUntil(seconds: 30, "the first open to fail") {
      daemon.log.contains("cannot open the motion history")
    }
    _ = close(locker)
    try waitUntil(seconds: 30, "history to recover") {
      try blocking { try await client.status() }.historyState == "recording"
    }
    #expect(daemon.log.contains("motion history available again"))
    client.close()
    #expect(try daemon.terminate() == 0)
  }

  /// Runs a second `motiond` on `daemon`'s state directory, and on its socket unless `socketPath`
  /// names another.
  static func secondDaemon(
    _ daemon: DaemonProcess, socketPath: String? = nil
  ) throws -> ChildProcess {
    try ChildProcess(
      DaemonProcess.productsDirectory.appendingPathComponent("motiond"),
      arguments: [
        "--source", "simulator:tour", "--socket", socketPath ?? daemon.socketPath,
        "--state-directory", daemon.stateDirectory,
      ])
  }

  /// Waits until the first daemon, which `first` talks to, records its history (the store's
  /// lock is then its own).
  static func waitUntilTheFirstRecords(_ first: DaemonClient) throws {
    try waitUntil(seconds: 30, "the first daemon to record") {
      (try? blocking { try await first.status() })?.historyState == "recording"
    }
  }

  /// Runs a second `motiond` on `daemon`'s state directory and a socket of its own, and waits
  /// until it answers; the caller closes the client and stops the daemon.
  static func secondDaemonOnTheSameHistory(
    _ daemon: DaemonProcess
  ) throws -> (process: ChildProcess, client: DaemonClient) {
    let socketPath = daemon.socketPath + ".second"
    let second = try secondDaemon(daemon, socketPath: socketPath)
    let client = DaemonClient(socketPath: socketPath)
    do {
      try waitUntil(seconds: 30, "the second daemon to answer") {
        (try? blocking { try await client.status() }) != nil
      }
    } catch {
      client.close()
      second.stop(grace: 10)
      throw error
    }
    return (second, client)
  }

  /// A second daemon on the same socket exits with a clear message, even when both start at the
  /// same instant, and never takes the first one's socket.
  @Test func onlyOneDaemonRunsPerSocket() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let second = try Self.secondDaemon(daemon)
    #expect(second.waitForExit(seconds: 30))
    #expect(second.terminationStatus == 1)
    second.waitForOutputEnd(seconds: 5)
    #expect(second.standardError.contains("another motiond is already running"))
    #expect(
      try blocking { try await DaemonClient(socketPath: daemon.socketPath).status() }.clients.count
        >= 1)
    #expect(try daemon.terminate() == 0)
    // Simultaneous starts: exactly one stays.
    let racers = try (0..<2).map { _ in try Self.secondDaemon(daemon) }
    try waitUntil(seconds: 30, "one racer to give up") {
      racers.contains { $0.terminationStatus != nil }
    }
    try waitUntil(seconds: 30, "the other to serve") {
      (try? blocking { try await DaemonClient(socketPath: daemon.socketPath).status() }) != nil
    }
    #expect(racers.filter { $0.terminationStatus == nil }.count == 1)
    for racer in racers { racer.stop(grace: 10) }
  }

  /// A second daemon on another socket but the same state directory (one started by systemd,
  /// one in a session without XDG_RUNTIME_DIR, whose socket is in /tmp): both used to record into
  /// the same file, where each minute's steps add up, so every step was stored twice. The second
  /// now serves without history, saying why, and takes the history over once the first stops.
  @Test func aSecondDaemonOnTheSameHistoryKeepsNone() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let first = DaemonClient(socketPath: daemon.socketPath)
    try Self.waitUntilTheFirstRecords(first)
    first.close()
    let (second, client) = try Self.secondDaemonOnTheSameHistory(daemon)
    defer { second.stop(grace: 10) }
    defer { client.close() }
    let state = try blocking { try await client.status() }.historyState
    #expect(state.hasPrefix("unavailable"), "\(state)")
    #expect(state.contains("another motiond is recording the motion history"), "\(state)")
    #expect(try daemon.terminate() == 0)
    // Retried every --retry-interval (5 s by default).
    try waitUntil(seconds: 60, "the second daemon to take the history over") {
      (try? blocking { try await client.status() })?.historyState == "recording"
    }
    // The state directory is the first daemon's: it goes when that is let go.
    withExtendedLifetime(daemon) {}
  }

  /// The user's denial, given through a second daemon on the same state directory (one without
  /// the store's lock), deletes the files the first daemon records into. The first one used to
  /// reopen the deleted file as a new, empty store and record on ("reopening the motion history:
  /// its file … was deleted"), against the denial; it now finds the marker and stops recording.
  @Test func aDenialThroughTheSecondDaemonStopsTheFirst() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let first = DaemonClient(socketPath: daemon.socketPath)
    defer { first.close() }
    try Self.waitUntilTheFirstRecords(first)
    let (second, client) = try Self.secondDaemonOnTheSameHistory(daemon)
    defer { second.stop(grace: 10) }
    defer { client.close() }
    try blocking { try await client.setHistoryAllowed(false) }
    // The first notices the deleted file at its next flush (every few seconds).
    try waitUntil(seconds: 60, "the first daemon to stop recording") {
      (try? blocking { try await first.status() })?.historyState == "denied"
    }
    // Its clients are told, as for a denial given through it.
    try waitUntil(seconds: 10, "the first daemon's client to learn of the denial") {
      !first.isHistoryAuthorized
    }
    let store = URL(fileURLWithPath: daemon.stateDirectory).appendingPathComponent(
      "history.sqlite")
    #expect(!FileManager.default.fileExists(atPath: store.path), "a new history was started")
  }

  /// The mirror of the test above: the user's allow, given through the second daemon after a
  /// denial, removes the marker. The first daemon used to stay denied, and to tell its clients
  /// so, until it restarted; it now finds the marker gone, tells its clients, and one of the two
  /// records (the other is unavailable, waiting for the store's lock).
  @Test func anAllowThroughTheSecondDaemonReachesTheFirst() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let first = DaemonClient(socketPath: daemon.socketPath)
    defer { first.close() }
    try Self.waitUntilTheFirstRecords(first)
    let (second, client) = try Self.secondDaemonOnTheSameHistory(daemon)
    defer { second.stop(grace: 10) }
    defer { client.close() }
    try blocking { try await client.setHistoryAllowed(false) }
    try waitUntil(seconds: 60, "the first daemon's client to learn of the denial") {
      !first.isHistoryAuthorized
    }
    try blocking { try await client.setHistoryAllowed(true) }
    try waitUntil(seconds: 20, "the first daemon's client to learn of the allow") {
      first.isHistoryAuthorized
    }
    #expect(try blocking { try await first.historyAuthorization() })
    // One of them records; the other waits for the store's lock.
    var states: [String] = []
    try waitUntil(seconds: 30, "one daemon to record") {
      states = [first, client].compactMap { daemonClient in
        (try? blocking { try await daemonClient.status() })?.historyState
      }
      return states.contains("recording")
    }
    #expect(states.count == 2, "\(states)")
    #expect(states.filter { $0 == "recording" }.count == 1, "\(states)")
    #expect(
      states.contains { $0.contains("another motiond is recording the motion history") },
      "\(states)")
  }

  /// A file that is not a socket at the socket path is an error, and is left alone.
  @Test func aRegularFileAtTheSocketPathIsNotReplaced() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    #expect(try daemon.terminate() == 0)
    let notes = Data("my notes, not a socket\n".utf8)
    #expect(FileManager.default.createFile(atPath: daemon.socketPath, contents: notes))
    let second = try Self.secondDaemon(daemon)
    #expect(second.waitForExit(seconds: 30))
    #expect(second.terminationStatus == 1)
    second.waitForOutputEnd(seconds: 5)
    #expect(second.standardError.contains("exists and is not a socket (it is a regular file)"))
    #expect(FileManager.default.contents(atPath: daemon.socketPath) == notes)
  }

  /// A store moved aside as corrupt holds the user's history too: denying deletes it.
  @Test func denyingHistoryDeletesCopiesMovedAsideAsCorrupt() throws {
    let directory = URL(
      fileURLWithPath: "/tmp/motiond-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    let state = directory.appendingPathComponent("state/opencoremotion")
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    let garbage = Data((0..<100_000).map { _ in UInt8.random(in: 0...255) })
    try garbage.write(to: state.appendingPathComponent("history.sqlite"))
    let daemon = try DaemonProcess(source: "simulator:tour", directory: directory)
    let client = DaemonClient(socketPath: daemon.socketPath)
    #expect(try blocking { try await client.status() }.historyState == "recording")
    let before = try FileManager.default.contentsOfDirectory(atPath: state.path)
    #expect(before.contains { $0.hasPrefix("history.sqlite.corrupt-") })
    try blocking { try await client.setHistoryAllowed(false) }
    #expect(try FileManager.default.contentsOfDirectory(atPath: state.path) == ["history-denied"])
    client.close()
    #expect(try daemon.terminate() == 0)
  }

  /// A symbolic link, a directory, or a file where the state directory should be: history is
  /// unavailable with a message naming what is there, and nothing is written through or over it.
  @Test func oddFilesAtTheStorePathGetClearMessages() throws {
    for (name, prepare, expected) in [
      (
        "symlink",
        { (state: URL, base: URL) in
          try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
          try FileManager.default.createSymbolicLink(
            atPath: state.appendingPathComponent("history.sqlite").path,
            withDestinationPath: base.appendingPathComponent("elsewhere.db").path)
        }, "is a symbolic link"
      ),
      (
        "directory",
        { (state: URL, _: URL) in
          try FileManager.default.createDirectory(
            at: state.appendingPathComponent("history.sqlite/x"), withIntermediateDirectories: true)
        }, "is a directory"
      ),
      (
        "state file",
        { (state: URL, _: URL) in
          try FileManager.default.createDirectory(
            at: state.deletingLastPathComponent(), withIntermediateDirectories: true)
          #expect(FileManager.default.createFile(atPath: state.path, contents: Data("x".utf8)))
        }, "exists and is not a directory"
      ),
    ] as [(String, (URL, URL) throws -> Void, String)] {
      let directory = URL(
        fileURLWithPath: "/tmp/motiond-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
      try prepare(directory.appendingPathComponent("state/opencoremotion"), directory)
      let daemon = try DaemonProcess(source: "simulator:tour", directory: directory)
      let client = DaemonClient(socketPath: daemon.socketPath)
      let state = try blocking { try await client.status() }.historyState
      #expect(state.hasPrefix("unavailable") && state.contains(expected), "\(name): \(state)")
      #expect(
        !FileManager.default.fileExists(
          atPath: directory.appendingPathComponent("elsewhere.db").path))
      client.close()
      #expect(try daemon.terminate() == 0)
    }
  }

  /// NaN dates are named as such, not as an order problem.
  @Test func nanDatesGetAClearMessage() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let client = DaemonClient(socketPath: daemon.socketPath)
    do {
      _ = try blocking {
        try await client.pedometerTotals(from: Date(timeIntervalSince1970: .nan), to: Date())
      }
      Issue.record("a NaN date was accepted")
    } catch let error as DaemonError {
      #expect(error.code == .invalidParameter)
      #expect(error.message.contains("finite numbers"))
    }
    client.close()
    #expect(try daemon.terminate() == 0)
  }
}
