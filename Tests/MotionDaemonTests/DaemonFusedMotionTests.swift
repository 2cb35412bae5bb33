// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemonClient
import MotionFusion
import MotionMath
import MotionSensors
import Testing

@testable import OpenCoreMotion

/// Device motion fused once, in the daemon, for every client. (Part of the serialized
/// daemon-process suite.)
extension DaemonProcessTests {
  /// Collects what a fused-motion subscription delivers.
  final class EstimateCollector: @unchecked Sendable {
    // Sendable because `estimates` is only touched under `lock`.
    private let lock = NSLock()
    private var estimates: [DeviceMotionEstimate] = []
    func handle(_ event: DaemonSource.FusedMotionEvent) {
      guard case .estimate(let estimate, _) = event else { return }
      lock.withLock { estimates.append(estimate) }
    }
    var all: [DeviceMotionEstimate] { lock.withLock { estimates } }
  }

  /// The daemon's estimates are exactly what the in-process fusion computes from the same samples
  /// (the simulator is seeded, so the test can replay them), a `CMMotionManager` on the daemon
  /// turns them into the same `CMDeviceMotion` as in-process code does, and the client asks the
  /// daemon for no raw samples at all.
  @Test func deviceMotionIsFusedOnceInTheDaemonForEveryClient() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let source = try DaemonSource(socketPath: daemon.socketPath)
    #expect(source.servesFusedMotion)

    // The first fused-motion client starts the daemon's estimator: it sees every estimate.
    let all = EstimateCollector()
    let everything = source.subscribeFusedMotion(rate: source.supportedSampleRates.upperBound) {
      all.handle($0)
    }
    // An app's manager at 50 Hz in the magnetic-north frame.
    let manager = CMMotionManager(source: source)
    manager.deviceMotionUpdateInterval = 0.02
    let updates = Locked<[CMDeviceMotion]>([])
    manager.startDeviceMotionUpdates(
      using: .xMagneticNorthZVertical,
      onDeliveryThread: {
        motion, _ in
        if let motion { updates.withLock { $0.append(motion) } }
      })
    try waitUntil(seconds: 30, "100 device-motion updates and 300 estimates") {
      updates.withLock { $0.count } >= 100 && all.all.count >= 300
    }

    // The daemon runs its source at the highest rate with the nine-axis sensors, and neither
    // subscription of this client asks for raw samples.
    let observer = DaemonClient(socketPath: daemon.socketPath, clientName: "observer")
    let status = try blocking { try await observer.status() }
    #expect(status.sourceSensors.isSuperset(of: .nineAxis))
    #expect(status.sourceRate == source.supportedSampleRates.upperBound)
    let subscriptions = status.clients.flatMap(\.subscriptions).filter(\.fusedMotion)
    #expect(subscriptions.count == 2)
    #expect(subscriptions.allSatisfy { $0.sensors.isEmpty })
    #expect(Set(subscriptions.map(\.rate)) == [50, source.supportedSampleRates.upperBound])

    manager.stopDeviceMotionUpdates()
    everything.cancel()
    let estimates = all.all
    let delivered = updates.withLock { $0 }
    try #require(estimates.count >= 300)

    // Replay the seeded scenario into an in-process feed from the daemon's first sample.
    var stream = SimulatedSensorStream(scenario: try Scenario.named("tour"))
    var feed = DeviceMotionFeed(samplePeriod: source.shortestSamplePeriod)
    var reference: [Double: DeviceMotionEstimate] = [:]
    let first = estimates[0].timestamp
    let last = max(estimates.last!.timestamp, delivered.last!.timestamp)
    while let sample = try stream.next(), sample.timestamp <= last {
      guard sample.timestamp >= first, let estimate = feed.update(with: sample) else { continue }
      reference[estimate.timestamp] = estimate
    }
    for estimate in estimates {
      let expected = try #require(reference[estimate.timestamp], "t = \(estimate.timestamp)")
      #expect(estimate == expected, "t = \(estimate.timestamp)")
    }
    // Consecutive: the daemon fused every sample, and the first client got every estimate.
    let spacings = zip(estimates.dropFirst(), estimates).map { $0.timestamp - $1.timestamp }
    #expect(spacings.allSatisfy { $0 > 0 && $0 < 1.5 * source.shortestSamplePeriod })

    // The manager's updates: every 20 ms by the samples' clock, each what the frame conversion
    // makes of the in-process estimate with the same timestamp.
    let aligner = ReferenceFrameAligner(frame: .xMagneticNorthZVertical)
    for motion in delivered {
      let estimate = try #require(reference[motion.timestamp], "t = \(motion.timestamp)")
      let expected = try #require(aligner.deviceMotion(from: estimate))
      let (q, p) = (motion.attitude.quaternion, expected.attitude.quaternion)
      #expect([q.w, q.x, q.y, q.z] == [p.w, p.x, p.y, p.z], "t = \(motion.timestamp)")
      for (got, want) in [
        (motion.gravity, expected.gravity), (motion.userAcceleration, expected.userAcceleration),
      ] {
        #expect([got.x, got.y, got.z] == [want.x, want.y, want.z], "t = \(motion.timestamp)")
      }
      let (r, s) = (motion.rotationRate, expected.rotationRate)
      #expect([r.x, r.y, r.z] == [s.x, s.y, s.z], "t = \(motion.timestamp)")
      #expect(motion.heading == expected.heading)
    }
    let managerSpacings = zip(delivered.dropFirst(), delivered).map { $0.timestamp - $1.timestamp }
    let mean = managerSpacings.reduce(0, +) / Double(managerSpacings.count)
    #expect(abs(mean - 0.02) < 0.002, "mean spacing \(mean) s")

    // When the last fused-motion client leaves, the daemon stops fusing and frees the sensors
    // (its history keeps the accelerometer, the gyroscope and the barometer).
    try waitUntil(seconds: 30, "the fused-motion subscriptions gone") {
      try blocking { try await observer.status() }.clients.allSatisfy {
        $0.subscriptions.allSatisfy { !$0.fusedMotion }
      }
    }
    try waitUntil(seconds: 30, "the magnetometer off again") {
      try !blocking { try await observer.status() }.sourceSensors.contains(.magnetometer)
    }
    source.client.close()
    observer.close()
    try daemon.terminate()
  }
}

extension DaemonProcessTests {
  /// Collects device motion, fused estimates and failures of several subscriptions.
  final class MotionCollector: @unchecked Sendable {
    // Sendable because every property is only touched under `lock`.
    private let lock = NSLock()
    private var motions: [DaemonDeviceMotion] = []
    private var estimates: [DeviceMotionEstimate] = []
    private var failures: [String] = []
    func handle(_ event: DaemonStreamEvent) {
      lock.withLock {
        switch event {
        case .deviceMotion(let motion, _): motions.append(motion)
        case .fusedMotion(let estimate, _): estimates.append(estimate)
        case .sourceFailure(_, let message, _): failures.append(message)
        default: break
        }
      }
    }
    var allMotions: [DaemonDeviceMotion] { lock.withLock { motions } }
    var allEstimates: [DeviceMotionEstimate] { lock.withLock { estimates } }
    var allFailures: [String] { lock.withLock { failures } }
  }

  /// A client in any language gets `CMDeviceMotion` in the frame it asks for, computed by the
  /// daemon from its one estimator: exactly what in-process frame conversion makes of the same
  /// estimates, with yaw 0 at the first update in the arbitrary frame; a frame the daemon cannot
  /// give is refused with a clear failure.
  @Test func theDaemonComputesDeviceMotionInTheFrameAClientAsksFor() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let client = DaemonClient(socketPath: daemon.socketPath, clientName: "frames")
    let info = try client.connect()
    let everything = MotionCollector()
    let north = MotionCollector()
    let arbitrary = MotionCollector()
    let trueNorth = MotionCollector()
    let all = try client.subscribe(
      DaemonStreamRequest(rate: info.supportedSampleRates.upperBound, fusedMotion: true)
    ) { everything.handle($0) }
    let northSubscription = try client.subscribe(
      DaemonStreamRequest(rate: 50, deviceMotionFrame: .xMagneticNorthZVertical)
    ) { north.handle($0) }
    let arbitrarySubscription = try client.subscribe(
      DaemonStreamRequest(rate: 25, deviceMotionFrame: .xArbitraryZVertical)
    ) { arbitrary.handle($0) }
    // The test's daemon has no location, so true north is refused.
    let trueNorthSubscription = try client.subscribe(
      DaemonStreamRequest(rate: 25, deviceMotionFrame: .xTrueNorthZVertical)
    ) { trueNorth.handle($0) }
    try waitUntil(seconds: 30, "100 updates in the magnetic-north frame") {
      north.allMotions.count >= 100 && arbitrary.allMotions.count >= 50
        && !trueNorth.allFailures.isEmpty
    }
    let status = try blocking { try await client.status() }
    let frames = status.clients.flatMap(\.subscriptions).compactMap(\.deviceMotionFrame)
    #expect(Set(frames) == [.xMagneticNorthZVertical, .xArbitraryZVertical])
    for subscription in [all, northSubscription, arbitrarySubscription, trueNorthSubscription] {
      subscription.cancel()
    }
    #expect(trueNorth.allMotions.isEmpty)
    #expect(trueNorth.allFailures.first?.contains("COREMOTION_LOCATION") == true)

    let estimates = Dictionary(
      everything.allEstimates.map { ($0.timestamp, $0) }, uniquingKeysWith: { first, _ in first })
    for (collector, frame, interval) in [
      (north, CMAttitudeReferenceFrame.xMagneticNorthZVertical, 0.02),
      (arbitrary, .xArbitraryZVertical, 0.04),
    ] {
      // The all-estimates subscription is cancelled first: a motion delivered after that has no
      // estimate to compare with, so only those up to its last estimate are compared.
      let lastEstimate = estimates.keys.max() ?? -.infinity
      let motions = collector.allMotions.filter { $0.timestamp <= lastEstimate }
      #expect(motions.count >= 25, "\(frame): \(motions.count) motions to compare")
      let aligner = ReferenceFrameAligner(frame: frame)
      for motion in motions {
        let estimate = try #require(estimates[motion.timestamp], "t = \(motion.timestamp)")
        let expected = try #require(aligner.deviceMotion(from: estimate))
        let q = expected.attitude.quaternion
        #expect(
          [motion.attitude.w, motion.attitude.x, motion.attitude.y, motion.attitude.z]
            == [q.w, q.x, q.y, q.z], "t = \(motion.timestamp)")
        let g = expected.gravity
        let u = expected.userAcceleration
        let r = expected.rotationRate
        #expect(motion.gravity == SIMD3(g.x, g.y, g.z))
        #expect(motion.userAcceleration == SIMD3(u.x, u.y, u.z))
        #expect(motion.rotationRate == SIMD3(r.x, r.y, r.z))
        #expect(motion.heading == expected.heading)
        #expect(motion.magneticFieldAccuracy == Int(expected.magneticField.accuracy.rawValue))
      }
      let spacings = zip(motions.dropFirst(), motions).map { $0.timestamp - $1.timestamp }
      let mean = spacings.reduce(0, +) / Double(max(1, spacings.count))
      #expect(abs(mean - interval) < interval / 10, "\(frame.name): mean spacing \(mean) s")
    }
    let first = try #require(arbitrary.allMotions.first)
    #expect(abs(AttitudeAngles(first.attitude).yaw) < 1e-12)
    #expect(north.allMotions.allSatisfy { (0..<360).contains($0.heading) })
    client.close()
    try daemon.terminate()
  }
}

extension DaemonProcessTests {
  /// Two app processes taking device motion at different rates see the same attitude at the same
  /// instant, bit for bit: the daemon fuses once for both (each fusing itself from its own start
  /// would give two estimates of every instant).
  @Test func twoAppProcessesSeeTheSameAttitudeAtTheSameInstant() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let environment = ["COREMOTION_SOURCE": "daemon:" + daemon.socketPath]
    // 10 s each: the two processes share at least a few seconds however late a loaded machine
    // starts one of them (with 2 s each, a start 1.5 s apart left too few common instants).
    let fast = try ChildProgram(
      "DaemonClientExample", arguments: ["motion", "0.01", "1000"], environment: environment)
    let slow = try ChildProgram(
      "DaemonClientExample", arguments: ["motion", "0.05", "200"], environment: environment)
    try fast.waitForExit(seconds: 90)
    try slow.waitForExit(seconds: 90)
    #expect(fast.process.terminationStatus == 0)
    #expect(slow.process.terminationStatus == 0)
    func attitudes(_ program: ChildProgram) -> [Double: [Double]] {
      var table: [Double: [Double]] = [:]
      for line in program.lines where line.hasPrefix("motion ") {
        let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        if values.count == 5 { table[values[0]] = Array(values.dropFirst()) }
      }
      return table
    }
    let fastAttitudes = attitudes(fast)
    let slowAttitudes = attitudes(slow)
    #expect(fastAttitudes.count == 1000)
    #expect(slowAttitudes.count == 200)
    // The fast app takes every estimate, so every instant of the slow one it was running for.
    let common = slowAttitudes.keys.filter { fastAttitudes[$0] != nil }
    #expect(common.count >= 10, "only \(common.count) common instants")
    for time in common {
      #expect(fastAttitudes[time] == slowAttitudes[time], "t = \(time)")
    }
    try daemon.terminate()
  }
}

extension DaemonProcessTests {
  /// A manager in `.xArbitraryZVertical` keeps its yaw continuous across a daemon restart. The
  /// restarted daemon's estimator starts with an arbitrary heading of its own (with a
  /// magnetometer it starts from the magnetic one, which hides the problem; this six-axis
  /// recording turning at 30 °/s about z starts again from its beginning), so keeping the old
  /// heading offset would make the yaw jump by however far the device had turned; the manager
  /// re-anchors on its last update.
  @Test func theArbitraryYawContinuesAcrossADaemonRestart() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("yaw-restart-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let recording = directory.appendingPathComponent("turn.csv").path
    var text = "# OpenCoreMotion CSV\n# version: 1\n# nominal-sample-rate-hz: 100\n"
    text += "t,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z\n"
    for i in 0..<6000 {
      let t = Double(i) / 100
      // Face up; at rest for 1 s, then 30 °/s about z.
      text += "\(t),0,0,9.80665,0,0,\(t < 1 ? 0 : 30 * Units.radiansPerDegree)\n"
    }
    try text.write(toFile: recording, atomically: true, encoding: .utf8)
    let daemon = try DaemonProcess(source: "replay:" + recording)
    let source = try DaemonSource(socketPath: daemon.socketPath)
    let manager = CMMotionManager(source: source)
    manager.deviceMotionUpdateInterval = 0.02
    let updates = Locked<[CMDeviceMotion]>([])
    let errors = Locked<[Error]>([])
    manager.startDeviceMotionUpdates(
      using: .xArbitraryZVertical,
      onDeliveryThread: { motion, error in
        if let motion { updates.withLock { $0.append(motion) } }
        if let error { errors.withLock { $0.append(error) } }
      })
    // 1 s at rest, then turning: 3 s of updates is 60° of yaw.
    try waitUntil(seconds: 30, "3 s of updates") { updates.withLock { $0.count } >= 150 }
    #expect(try daemon.terminate() == 0)
    try waitUntil(seconds: 30, "the disconnection to be reported") {
      !errors.withLock { $0 }.isEmpty
    }
    let before = updates.withLock { $0 }
    try daemon.restart()
    try waitUntil(seconds: 30, "2 s of updates from the restarted daemon") {
      updates.withLock { $0.count } >= before.count + 100
    }
    manager.stopDeviceMotionUpdates()
    let after = updates.withLock { Array($0[before.count...]) }
    let degrees = Units.degreesPerRadian
    func difference(_ a: CMDeviceMotion, _ b: CMDeviceMotion) -> Double {
      let d = (a.attitude.yaw - b.attitude.yaw) * degrees
      return d > 180 ? d - 360 : d < -180 ? d + 360 : d
    }
    let lastBefore = try #require(before.last)
    let turnedBefore = difference(lastBefore, before[0])
    let jump = difference(after[0], lastBefore)
    print(
      "daemon restart: the yaw had turned \(turnedBefore)° before it; step across it \(jump)°")
    #expect(abs(turnedBefore) > 20, "the device turned before the restart")
    // The first update after the restart continues the last one (the turn during the gap is
    // unknown); then the yaw follows the new estimator's turn (the recording starts again: 1 s
    // at rest, then 30 °/s).
    #expect(abs(jump) < 0.5)
    #expect(abs(difference(after[99], after[0])) > 20)
  }
}

extension DaemonProcessTests {
  /// An update interval changed while updates run reaches the daemon, which sends each client
  /// its own rate: a manager started at 1 s and set to 0.02 s kept its 1 Hz subscriptions, so
  /// its handlers went on being called once a second.
  @Test func anIntervalChangedWhileUpdatesRunReachesTheDaemon() throws {
    let daemon = try DaemonProcess(source: "simulator:tour")
    let source = try DaemonSource(socketPath: daemon.socketPath)
    #expect(source.servesFusedMotion)
    let manager = CMMotionManager(source: source)
    let queue = OperationQueue()
    manager.accelerometerUpdateInterval = 1
    manager.deviceMotionUpdateInterval = 1
    manager.startAccelerometerUpdates(to: queue) { _, _ in }
    manager.startDeviceMotionUpdates(to: queue) { _, _ in }
    defer {
      manager.stopAccelerometerUpdates()
      manager.stopDeviceMotionUpdates()
    }
    let observer = DaemonClient(socketPath: daemon.socketPath, clientName: "observer")
    /// The rates (Hz) of the daemon's raw and fused-motion subscriptions, each sorted.
    func rates() -> (raw: [Double], fused: [Double])? {
      guard let status = try? blocking({ try await observer.status() }) else { return nil }
      let subscriptions = status.clients.flatMap(\.subscriptions)
      return (
        subscriptions.filter { !$0.fusedMotion }.map(\.rate).sorted(),
        subscriptions.filter(\.fusedMotion).map(\.rate).sorted()
      )
    }
    try waitUntil(seconds: 30, "a raw and a fused-motion subscription at 1 Hz") {
      rates().map { $0.raw == [1] && $0.fused == [1] } ?? false
    }
    manager.accelerometerUpdateInterval = 0.02
    manager.deviceMotionUpdateInterval = 0.05
    let followed =
      (try? waitUntil(seconds: 30, "the subscriptions at 50 and 20 Hz") {
        rates().map { $0.raw == [50] && $0.fused == [20] } ?? false
      }) != nil
    #expect(followed, "the daemon's subscriptions (raw, fused), Hz: \(String(describing: rates()))")
  }
}
