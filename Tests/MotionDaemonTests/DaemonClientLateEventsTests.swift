// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import Testing

@testable import MotionDaemonClient

/// A stream told `.disconnected` for a connection hears nothing more of it: what that
/// connection's reader thread still hands over (the rest of a batch it was handing out when the
/// connection ended) is dropped, and the next connection's events come after `.reconnected`.
///
/// A connection ends in the middle of a batch when a write fails: `send` ends it, and the
/// streams are told `.disconnected` on a thread of its own, which then races the reader thread
/// for the stream's `deliveryLock` between two samples. The reader takes the lock again
/// microseconds after it let it go and wins nearly every time, so the public API alone leaves a
/// late sample to chance. The test ends the connection as a failed write does
/// (`connectionLost`), but on the reader thread itself, from the handler of the batch's first
/// sample: the rest of the batch is then late for certain.
@Suite struct DaemonClientLateEventsTests {
  @Test func aLostConnectionsLateSamplesAreDroppedAndTheNextConnectionsDelivered() throws {
    let daemon = try FakeDaemon()
    // Connection 0 brings samples 1…4, connection 1 samples 1001…1004.
    daemon.samplesAfterSubscribe = 4
    let client = DaemonClient(socketPath: daemon.path)
    defer { client.close() }
    let told = try streamLosingItsFirstConnection(
      client, until: "sample 1004", holdingTheReaderForTheNextHandshake: false)
    #expect(
      told == [
        "sample 1", "disconnected", "reconnected",
        "sample 1001", "sample 1002", "sample 1003", "sample 1004",
      ], "\(told)")
    #expect(daemon.accepted == 2, "one reconnection")
  }

  /// A notice that a lost connection's reader hands over after the next connection's handshake
  /// (here: an authorization notice queued behind a sample whose handler held the old reader
  /// until then) must not overwrite what the new handshake said: the daemon's answer now is the
  /// new connection's.
  @Test func aLostConnectionsLateNoticeDoesNotOverwriteTheNextHandshake() throws {
    let daemon = try FakeDaemon()
    daemon.samplesAfterSubscribe = 1
    // The first connection follows its sample with a denial; every handshake allows.
    daemon.authorizationAfterFirstSamples = false
    let client = DaemonClient(socketPath: daemon.path)
    defer { client.close() }
    _ = try streamLosingItsFirstConnection(
      client, until: "sample 1001", holdingTheReaderForTheNextHandshake: true)
    #expect(daemon.accepted == 2, "one reconnection")
    #expect(client.isHistoryAuthorized, "the lost connection's late denial overwrote the handshake")
  }

  /// Subscribes an accelerometer stream whose handler, at the first sample, ends that
  /// connection as a failed write does (`connectionLost`, on the reader thread itself: the
  /// stream's lock is recursive, so the stream is told `.disconnected` right there) and, when
  /// `holding`, keeps the old reader until the next connection's handshake is done. Waits for the
  /// event `until` and for the old reader thread to end (then it has handed over all it ever
  /// will), and returns every event the stream was told, in order.
  private func streamLosingItsFirstConnection(
    _ client: DaemonClient, until last: String, holdingTheReaderForTheNextHandshake holding: Bool
  ) throws -> [String] {
    let events = Locked<[String]>([])
    // The reader thread that handed over the first sample.
    let firstReader = Locked<Thread?>(nil)
    let request = DaemonStreamRequest(sensors: .accelerometer, rate: 50)
    let subscription = try client.subscribe(request) { [weak client] event in
      events.withLock { $0.append(describe(event)) }
      guard case .sample = event, let client else { return }
      let isFirst = firstReader.withLock { reader -> Bool in
        guard reader == nil else { return false }
        reader = Thread.current
        return true
      }
      guard isFirst, let socket = client.state.withLock({ $0.socket }) else { return }
      let lost = client.state.withLock { $0.connection }
      client.connectionLost(socket)
      guard holding else { return }
      let deadline = Date().addingTimeInterval(20)
      while client.state.withLock({ $0.connection }) == lost, Date() < deadline {
        Thread.sleep(forTimeInterval: 0.005)
      }
    }
    defer { subscription.cancel() }
    try waitUntil(seconds: 30, "the event \(last)") { events.withLock { $0 }.contains(last) }
    let reader = try #require(firstReader.withLock { $0 })
    try waitUntil(seconds: 30, "the lost connection's reader thread to end") { reader.isFinished }
    return events.withLock { $0 }
  }
}

/// An event as the expectations name it: a sample by its timestamp.
private func describe(_ event: DaemonStreamEvent) -> String {
  switch event {
  case .sample(let sample, _): "sample \(Int(sample.timestamp))"
  case .disconnected: "disconnected"
  case .reconnected: "reconnected"
  default: "\(event)"
  }
}
