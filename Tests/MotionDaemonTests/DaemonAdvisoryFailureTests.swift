// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionConcurrency
import MotionDaemon
import MotionDaemonClient
import MotionSensors
import OpenCoreMotion
import Testing

/// A source the test drives by hand: `emit` delivers synchronously, on the caller's thread, to
/// every subscriber (the daemon, here). Once finished it answers a later subscriber `.finished`,
/// as a player at the end of its recording does: a daemon restarted just before the end, whose
/// client has not subscribed again yet, still passes the end on. Its sensors can be dropped and
/// restored, as a phone stream that learns it has no gyroscope drops it (before it reports that).
final class HandDrivenSource: SensorSource, @unchecked Sendable {
  // Sendable because `sensors`, `handlers` and `isFinished` are Locked values and the rest is
  // immutable.
  let name: String
  private let sensors: Locked<SensorSet>
  let supportedSampleRates: ClosedRange<Double> = 1...100
  private let handlers = Locked<(next: UInt64, all: [UInt64: @Sendable (SourceEvent) -> Void])>(
    (0, [:]))
  private let isFinished = Locked(false)
  /// The timestamp of the latest sample emitted, s.
  let latestTimestamp = Locked(0.0)

  init(name: String = "hand-driven", sensors: SensorSet = [.accelerometer]) {
    self.name = name
    self.sensors = Locked(sensors)
  }

  var availableSensors: SensorSet { sensors.withLock { $0 } }
  func drop(_ dropped: SensorSet) { sensors.withLock { $0.subtract(dropped) } }
  func restore(_ restored: SensorSet) { sensors.withLock { $0.formUnion(restored) } }

  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    if isFinished.withLock({ $0 }) {
      handler(.finished)
      return SourceSubscription {}
    }
    let id = handlers.withLock { h -> UInt64 in
      h.next += 1
      h.all[h.next] = handler
      return h.next
    }
    return SourceSubscription { [handlers] in
      _ = handlers.withLock { $0.all.removeValue(forKey: id) }
    }
  }

  func emit(_ event: SourceEvent) {
    switch event {
    case .finished: isFinished.withLock { $0 = true }
    case .sample(let sample): latestTimestamp.withLock { $0 = sample.timestamp }
    case .failure: break
    }
    for handler in handlers.withLock({ Array($0.all.values) }) { handler(event) }
  }
}

/// A daemon on a ``HandDrivenSource``, its socket and state in a directory of its own, which a
/// test can stop and start again (a restart keeps the socket path and the state).
struct HandDrivenDaemon {
  let directory: String
  let configuration: DaemonConfiguration
  let source: HandDrivenSource

  /// `label` names the directory in /tmp, with the process id and a random number.
  init(label: String, source: HandDrivenSource = HandDrivenSource()) {
    directory = "/tmp/ocm-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    var configuration = DaemonConfiguration(
      socketPath: directory + "/motiond.sock", stateDirectory: directory + "/state")
    configuration.flushInterval = 0.05
    self.configuration = configuration
    self.source = source
  }

  /// Starts a daemon on the source (again, after a stop).
  func start() throws -> MotionDaemon {
    let daemon = MotionDaemon(
      source: source, configuration: configuration, logger: Logger(label: "test"))
    try daemon.start()
    return daemon
  }

  /// Removes the directory, for the test's `defer`.
  func removeDirectory() { try? FileManager.default.removeItem(atPath: directory) }
}

/// Failures of the daemon's source reach a `DaemonSource` with their `isFatal`, and a lost
/// connection is advisory. Before, the wire had no room for `isFatal` and every failure arrived
/// fatal: one malformed POST of a phone source, or a daemon restart, ended every client's async
/// sequences for good.
@Suite struct DaemonAdvisoryFailureTests {
  @Test func anAdvisoryFailureOfTheDaemonsSourceLeavesClientSequencesRunning() async throws {
    let harness = HandDrivenDaemon(label: "advisory")
    defer { harness.removeDirectory() }
    let (source, configuration) = (harness.source, harness.configuration)
    var daemon = try harness.start()
    defer { daemon.stop() }

    let daemonSource = try DaemonSource(socketPath: configuration.socketPath)
    defer { daemonSource.client.close() }
    let manager = CMMotionManager(source: daemonSource)
    manager.accelerometerUpdateInterval = 0.01
    let sequence = manager.accelerometerUpdates()

    // Samples every 20 ms of the source's clock on a thread of their own, while the test consumes
    // the sequence on its task (a second task could wait for a cooperative thread for ever on a
    // loaded machine). Past its deadline the thread ends the source, which ends the sequence, so
    // that a test that goes wrong fails rather than hangs.
    let stopEmitting = Locked(false)
    let emitterDone = DispatchSemaphore(value: 0)
    Thread {
      let deadline = Date(timeIntervalSinceNow: 120)
      var timestamp = 1000.0
      while !stopEmitting.withLock({ $0 }) {
        if Date() > deadline {
          source.emit(.finished)
          break
        }
        timestamp += 0.02
        source.emit(.sample(MotionSample(timestamp: timestamp, accelerometer: SIMD3(0, 0, 9.81))))
        usleep(20_000)
      }
      emitterDone.signal()
    }.start()

    // The consumer may start late on a busy machine and find many samples queued: what proves
    // that the sequence went on across the restart is a sample emitted after it.
    var received = 0
    var restartedAfter: Double?
    var receivedAfterRestart = 0
    for await data in sequence {
      received += 1
      if let restartedAfter, data.timestamp > restartedAfter { receivedAfterRestart += 1 }
      switch received {
      case 5:
        source.emit(.failure(SourceFailure(.malformedData, "one bad POST", isFatal: false)))
      case 10:
        // A daemon restart: the client reconnects, and the same sequence goes on.
        daemon.stop()
        restartedAfter = source.latestTimestamp.withLock { $0 }
        daemon = try harness.start()
      default:
        break
      }
      if receivedAfterRestart == 5 {
        stopEmitting.withLock { $0 = true }
        emitterDone.wait()
        source.emit(.finished)
      }
    }
    stopEmitting.withLock { $0 = true }
    // The manager's runs end with it: it must live until the sequence has ended.
    withExtendedLifetime(manager) {}
    #expect(received >= 15, "the sequence ended after \(received) updates")
    #expect(receivedAfterRestart >= 5, "\(receivedAfterRestart) updates after the restart")
    #expect(sequence.error == nil, "the sequence ended with \(String(describing: sequence.error))")
  }
}
