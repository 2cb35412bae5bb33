// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionSensors
import OpenCoreMotion
import Testing

@testable import MotionDaemonClient

/// Pedometer updates from a past date, privacy as the CM* classes see it, and sensors switched
/// off when nobody needs them. (Part of the serialized daemon-process suite: one daemon at a time
/// on a loaded machine.)
extension DaemonProcessTests {
  /// A history backed by the daemon at `socketPath`, as the CM* classes of an app get it.
  private func appHistory(_ socketPath: String) throws -> (DaemonSource, DaemonMotionHistory) {
    let source = try DaemonSource(socketPath: socketPath)
    let live = InProcessMotionHistory(source: source)
    return (source, DaemonMotionHistory(client: source.client, live: live))
  }

  @Test func onlyAPedometerClientLeavesTheMagnetometerOff() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let observer = DaemonClient(socketPath: daemon.socketPath, clientName: "observer")
    // The daemon's own history needs the accelerometer, the gyroscope (a limb's strides for the
    // step count) and the barometer only.
    try waitUntil(seconds: 30, "the history's subscription") {
      try blocking { try await observer.status() }.sourceSensors == [
        .accelerometer, .gyroscope, .barometer,
      ]
    }
    // An app with a pedometer: its history subscribes for what its detectors read.
    let (source, history) = try appHistory(daemon.socketPath)
    _ = history.pedometerSummary(from: Date().addingTimeInterval(-60), to: Date())
    try waitUntil(seconds: 30, "the app's subscription") {
      try blocking { try await observer.status() }.clients.contains { client in
        client.subscriptions.contains { $0.sensors == [.accelerometer, .gyroscope, .barometer] }
      }
    }
    var status = try blocking { try await observer.status() }
    #expect(status.sourceSensors == [.accelerometer, .gyroscope, .barometer])
    #expect(status.availableSensors.contains(.magnetometer))

    // A client that wants the magnetometer switches it on; when it leaves, it goes off again.
    let collector = Collector()
    let magnetometer = try observer.subscribe(
      DaemonStreamRequest(sensors: .magnetometer, rate: 50)
    ) {
      collector.handle($0)
    }
    try waitUntil(seconds: 30, "the magnetometer on") {
      try blocking { try await observer.status() }.sourceSensors.contains(.magnetometer)
    }
    try waitUntil(seconds: 30, "magnetometer samples") { collector.sampleCount >= 10 }
    #expect(collector.allSamples.allSatisfy { $0.magnetometer != nil && $0.accelerometer == nil })
    magnetometer.cancel()
    try waitUntil(seconds: 30, "the magnetometer off again") {
      try !blocking { try await observer.status() }.sourceSensors.contains(.magnetometer)
    }
    status = try blocking { try await observer.status() }
    #expect(status.sourceSensors == [.accelerometer, .gyroscope, .barometer])
    #expect(daemon.log.contains("for [accelerometer, gyroscope, barometer]"))
    source.client.close()
    observer.close()
    try daemon.terminate()
  }

  @Test func denyingHistoryIsWhatEveryMotionClassReports() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let (source, history) = try appHistory(daemon.socketPath)
    let pedometer = CMPedometer(backend: history)
    #expect(CMAuthorizationStatus.status(for: history) == .authorized)

    /// The error of a pedometer query (nil on success).
    func queryError() throws -> NSError? {
      let result = Locked<NSError?>(nil)
      let done = DispatchSemaphore(value: 0)
      pedometer.queryPedometerData(from: Date().addingTimeInterval(-60), to: Date()) { _, error in
        result.withLock { $0 = error as NSError? }
        done.signal()
      }
      guard done.wait(timeout: .now() + 30) == .success else {
        throw DaemonProcess.Failure(description: "the query did not answer")
      }
      return result.withLock { $0 }
    }
    #expect(try queryError() == nil)

    // The user denies history from another process; the app's client hears it from the daemon
    // without asking (its cached answer is never stale while connected).
    let settings = DaemonClient(socketPath: daemon.socketPath, clientName: "motionctl")
    try blocking { try await settings.setHistoryAllowed(false) }
    try waitUntil(seconds: 30, "the change notice") { !source.client.isHistoryAuthorized }
    #expect(CMAuthorizationStatus.status(for: history) == .denied)
    #expect(try blocking { try await source.client.historyAuthorization() } == false)
    let refused = try #require(try queryError())
    #expect(refused.domain == CMErrorDomain)
    #expect(refused.code == Int(CMErrorMotionActivityNotAuthorized.rawValue))
    #expect(
      CMSensorRecorder(backend: history).accelerometerData(
        from: Date().addingTimeInterval(-60), to: Date()) == nil)

    // The class methods of an app that reads the daemon (a separate process, as an app is).
    func classStatuses() throws -> String? {
      let app = try ChildProgram(
        "DaemonClientExample", arguments: ["authorization"],
        environment: ["COREMOTION_SOURCE": "daemon:" + daemon.socketPath],
        removing: ["COREMOTION_AUTHORIZATION"])
      try app.waitForExit(seconds: 30)
      return app.lines.first { $0.hasPrefix("authorization ") }
    }
    let denied = CMAuthorizationStatus.denied.rawValue
    #expect(try classStatuses() == "authorization \(denied) \(denied) \(denied) \(denied)")

    try blocking { try await settings.setHistoryAllowed(true) }
    try waitUntil(seconds: 30, "the change notice") { source.client.isHistoryAuthorized }
    #expect(CMAuthorizationStatus.status(for: history) == .authorized)
    #expect(try queryError() == nil)
    let authorized = CMAuthorizationStatus.authorized.rawValue
    #expect(
      try classStatuses() == "authorization \(authorized) \(authorized) \(authorized) \(authorized)"
    )
    settings.close()
    source.client.close()
    try daemon.terminate()
  }

  /// The totals of live pedometer updates are computed in the live event path, which on the
  /// daemon runs on the connection's reader thread. When the daemon has no answer for them (here:
  /// updates from a date still in the future, which it refuses), asking again must not wait there:
  /// the answer could only be read by that same thread, so every sample stalled for the query's
  /// timeout (5 s) and every stream of the process with it.
  @Test func pedometerTotalsNeverStallTheConnectionsReaderThread() throws {
    let daemon = try DaemonProcess(source: "simulator:walk?speed=4")
    let (source, history) = try appHistory(daemon.socketPath)
    let totals = history.pedometerUpdates(from: Date().addingTimeInterval(3600))
    let samples = Locked(0)
    let subscription = source.subscribe(requestedSampleRate: 50, sensors: [.accelerometer]) {
      event in
      guard case .sample = event else { return }
      // As CMPedometer does for each step; here for every sample, on the reader thread.
      _ = totals(Date())
      samples.withLock { $0 += 1 }
    }
    try waitUntil(seconds: 30, "the first samples") { samples.withLock { $0 } > 0 }
    let before = samples.withLock { $0 }
    // 50 Hz is 50 samples in about 1 s; stalled, the reader gets about one per 5 s (the reply
    // timeout it would wait for each time), so 50 would take minutes. A loaded machine gets a
    // generous deadline rather than a fixed 3 s.
    let reached = (try? waitUntil(seconds: 30, "") { samples.withLock { $0 } - before > 50 }) != nil
    let during = samples.withLock { $0 } - before
    subscription.cancel()
    #expect(reached, "\(during) samples in 30 s while the totals were asked for")
    source.client.close()
    try daemon.terminate()
  }

  @Test func pedometerUpdatesFromAPastDateStartFromTheStoredCount() throws {
    // Two walks of 36 steps with a long rest between, at 4× real time: the first walk happens
    // before the app starts, the second while it watches.
    var scenario = try Scenario.named("walk")
    scenario.name = "twoWalks"
    scenario.segments = [
      .rest(duration: 1), .walk(cadence: 1.8, speed: 1.3, duration: 20), .rest(duration: 40),
      .walk(cadence: 1.8, speed: 1.3, duration: 20), .rest(duration: 600),
    ]
    let directory = URL(fileURLWithPath: "/tmp/motiond-test-\(getpid())-walks")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let scenarioFile = directory.appendingPathComponent("twoWalks.json")
    try JSONEncoder().encode(scenario).write(to: scenarioFile)
    let daemon = try DaemonProcess(
      source: "simulator:\(scenarioFile.path)?speed=4", directory: directory)
    let probe = DaemonClient(socketPath: daemon.socketPath, clientName: "probe")
    let start = Date().addingTimeInterval(-3600)
    // The first walk reaches the daemon's history (source time 21 s, about 5 s after the start).
    try waitUntil(seconds: 60, "the first walk in the daemon's history") {
      try blocking { try await probe.pedometerTotals(from: start, to: Date()) }.steps >= 30
    }
    let stored = try blocking { try await probe.pedometerTotals(from: start, to: Date()) }.steps

    // The app starts now: its own detectors have seen nothing…
    let (source, history) = try appHistory(daemon.socketPath)
    let pedometer = CMPedometer(backend: history)
    let updates = Locked<[Int]>([])
    pedometer.startUpdates(from: start) { data, error in
      guard let data, error == nil else { return }
      let steps = data.numberOfSteps.intValue
      updates.withLock { $0.append(steps) }
    }
    // …but the first update carries the stored count at once.
    try waitUntil(seconds: 30, "the first update") { !updates.withLock { $0.isEmpty } }
    let first = try #require(updates.withLock { $0.first })
    #expect(first >= Int(stored))
    // Then the second walk's steps are added live, on top of the stored ones.
    try waitUntil(seconds: 60, "the second walk counted live") {
      (updates.withLock { $0.last } ?? 0) >= first + 30
    }
    try waitUntil(seconds: 30, "the second walk's end") {
      let totals = try blocking { try await probe.pedometerTotals(from: start, to: Date()) }
      // Still for 2 s of source time (0.5 s here): the walk is over.
      Thread.sleep(forTimeInterval: 0.5)
      return try blocking { try await probe.pedometerTotals(from: start, to: Date()) }.steps
        == totals.steps
        && totals.steps >= stored + 30
    }
    // The last update (at the pause) carries the daemon's count: wait for it rather than for a
    // fixed time. The daemon's count is read again at each poll: the steps the detector still
    // held when the walk ended can reach it after the quiet spell above (seen once on a loaded
    // machine: the updates ended at 70, the count read once before had 68).
    var final = try blocking { try await probe.pedometerTotals(from: start, to: Date()) }.steps
    _ = try? waitUntil(seconds: 30, "") {
      // A failed read keeps the count read before it.
      final =
        (try? blocking { try await probe.pedometerTotals(from: start, to: Date()) })?.steps
        ?? final
      return Double(updates.withLock { $0.last } ?? 0) == final
    }
    pedometer.stopUpdates()
    let all = updates.withLock { $0 }
    print(
      "pedometer from a past date: stored \(stored), first update \(first), last \(all.last ?? 0), daemon total \(final)"
    )
    // Cumulative updates never go back.
    #expect(zip(all.dropFirst(), all).allSatisfy { $0 >= $1 })
    // The updates are the daemon's count: stored + live, no step twice, none lost (the update at
    // the pause carries the last steps even when the daemon's counter for them arrived after the
    // update the app's own step event triggered).
    #expect(Double(all.last ?? 0) == final)
    source.client.close()
    probe.close()
    try daemon.terminate()
  }
}

extension DaemonProcessTests {
  @Test func liveTotalsAddTheCounterSinceTheAnswerToTheStoredTotals() {
    let date = Date(timeIntervalSince1970: 1_800_000_000)
    func reading(_ steps: UInt64, _ distance: Double, _ up: UInt64) -> DaemonPedometerReading {
      DaemonPedometerReading(
        timestamp: 0, date: date, steps: steps, distance: distance, floorsAscended: up,
        floorsDescended: 0, cadence: 0,
        activeTime: Double(steps) / 2)
    }
    let totals = DaemonPedometerTotals(
      startDate: date, endDate: date, steps: 120, distance: 90, floorsAscended: 2,
      floorsDescended: 1, activeTime: 60,
      counters: reading(500, 400, 3))
    let live = PedometerSummary(startDate: date, endDate: date, numberOfSteps: 7)
    let later = DaemonMotionHistory.summary(
      totals, counters: totals.counters!, latest: reading(530, 421, 4), live: live,
      countsFloors: true)
    #expect(later.numberOfSteps == 150)
    #expect(abs(later.distance - 111) < 1e-9)
    #expect(later.floorsAscended == 3)
    #expect(later.floorsDescended == 1)
    #expect(abs(later.activeDuration - 75) < 1e-9)
    // A counter message older than the answer (stream messages travel behind replies) adds
    // nothing, and neither does having none yet.
    let stale = DaemonMotionHistory.summary(
      totals, counters: totals.counters!, latest: reading(499, 399, 3), live: live,
      countsFloors: true)
    #expect(stale.numberOfSteps == 120)
    #expect(abs(stale.distance - 90) < 1e-9)
    let none = DaemonMotionHistory.summary(
      totals, counters: totals.counters!, latest: nil, live: live, countsFloors: false)
    #expect(none.numberOfSteps == 120)
    #expect(none.floorsAscended == nil)
    // After a reconnection the stored totals stand alone until the daemon answers again; the
    // updates never go back below what they showed (150 steps, 3 floors up) meanwhile.
    let afterReconnection = none.notBelow(later)
    #expect(afterReconnection.numberOfSteps == 150)
    #expect(abs(afterReconnection.distance - 111) < 1e-9)
    #expect(afterReconnection.floorsAscended == nil)
    let withFloors = stale.notBelow(later)
    #expect(withFloors.floorsAscended == 3)
    #expect(withFloors.floorsDescended == 1)
    #expect(abs(withFloors.activeDuration - 75) < 1e-9)
    #expect(later.notBelow(stale) == later)
  }
}
