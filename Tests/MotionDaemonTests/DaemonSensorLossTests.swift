// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemon
import MotionDaemonClient
import MotionSensors
import Testing

@testable import OpenCoreMotion

/// A phone source behind the daemon that turns out to have no gyroscope. The daemon saw it, but
/// its clients kept the sensors of their handshake: an app's device motion through
/// `COREMOTION_SOURCE=daemon` stayed active and silent for ever, and `isDeviceMotionAvailable`
/// true. The daemon now tells its clients the new set before it passes the failure on. (Part of
/// the serialized daemon-process suite: `blocking` holds a thread of Swift concurrency's pool
/// while its request runs on another, and on 2 cores this test beside another such suite left
/// none, so both timed out after 60 s.)
extension DaemonProcessTests {
  @Test func deviceMotionThroughTheDaemonEndsWhenItsSourceLosesTheGyroscope() throws {
    let harness = HandDrivenDaemon(
      label: "sensor-loss", source: HandDrivenSource(name: "shrinking", sensors: .nineAxis))
    defer { harness.removeDirectory() }
    let (source, configuration) = (harness.source, harness.configuration)
    let daemon = try harness.start()
    defer { daemon.stop() }

    // Samples every 10 ms of the source's clock, with the readings the source offers at the
    // time, on a thread of their own until the test ends (or 120 s pass, bounding a failing run).
    let stopEmitting = Locked(false)
    let emitterDone = DispatchSemaphore(value: 0)
    Thread {
      let deadline = Date(timeIntervalSinceNow: 120)
      var timestamp = 1000.0
      while !stopEmitting.withLock({ $0 }), Date() < deadline {
        timestamp += 0.01
        let sample = MotionSample(
          timestamp: timestamp, accelerometer: SIMD3(0, 0, 9.81), gyroscope: .zero,
          magnetometer: SIMD3(20, 0, -40), pressure: 101.3)
        source.emit(.sample(sample.keeping(source.availableSensors)))
        usleep(10_000)
      }
      emitterDone.signal()
    }.start()
    defer {
      stopEmitting.withLock { $0 = true }
      emitterDone.wait()
    }

    let daemonSource = try DaemonSource(socketPath: configuration.socketPath)
    defer { daemonSource.client.close() }
    #expect(daemonSource.servesFusedMotion)
    let manager = CMMotionManager(source: daemonSource)
    #expect(manager.isDeviceMotionAvailable)
    manager.deviceMotionUpdateInterval = 0.02
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let updates = Locked(0)
    let errors = Locked<[NSError]>([])
    manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { motion, error in
      if motion != nil { updates.withLock { $0 += 1 } }
      if let error { errors.withLock { $0.append(error as NSError) } }
    }
    try waitUntil(seconds: 60, "device motion through the daemon") {
      updates.withLock { $0 } >= 10
    }
    #expect(errors.withLock { $0 }.isEmpty)

    // The phone turns out to stream no gyroscope: the source drops it, then says so.
    source.drop(.gyroscope)
    source.emit(
      .failure(
        SourceFailure(
          .other, "Sensor Logger streams no gyroscope, so there is no device motion",
          isFatal: false)))
    func notAvailable() -> [NSError] {
      errors.withLock { $0 }.filter {
        $0.domain == CMErrorDomain && $0.code == Int(CMErrorNotAvailable.rawValue)
      }
    }
    try waitUntil(seconds: 60, "the device-motion run to end with CMErrorNotAvailable") {
      !notAvailable().isEmpty
    }
    queue.waitUntilAllOperationsAreFinished()
    #expect(notAvailable().count == 1, "\(errors.withLock { $0 })")
    #expect(
      notAvailable().first?.localizedDescription.contains("no gyroscope") ?? false,
      "\(errors.withLock { $0 })")
    #expect(!manager.isDeviceMotionAvailable)
    #expect(!manager.isGyroAvailable)
    #expect(manager.isAccelerometerAvailable)
    #expect(!daemonSource.servesFusedMotion)
    #expect(daemonSource.availableSensors == SensorSet.nineAxis.subtracting(.gyroscope))
    // A start from now on is refused, as on a device without a gyroscope.
    manager.stopDeviceMotionUpdates()
    manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { _, _ in }
    #expect(!manager.isDeviceMotionActive)

    // `motionctl status` reads the sensors the source offers now, and the source is asked for
    // those only; a client connecting now is told the same in its handshake.
    let observer = DaemonClient(socketPath: configuration.socketPath, clientName: "observer")
    defer { observer.close() }
    let status = try blocking { try await observer.status() }
    #expect(status.availableSensors == SensorSet.nineAxis.subtracting(.gyroscope))
    try waitUntil(seconds: 60, "the source subscribed without the gyroscope") {
      let status = try blocking { try await observer.status() }
      return !status.sourceSensors.contains(.gyroscope)
    }
    let later = try DaemonSource(socketPath: configuration.socketPath)
    defer { later.client.close() }
    #expect(!later.servesFusedMotion)
    #expect(!later.availableSensors.contains(.gyroscope))

    // A gyroscope that comes back (a new recording with one) is offered again.
    source.restore(.gyroscope)
    try waitUntil(seconds: 60, "the gyroscope offered again") {
      daemonSource.availableSensors.contains(.gyroscope) && daemonSource.servesFusedMotion
    }
    #expect(manager.isDeviceMotionAvailable)
  }
}
