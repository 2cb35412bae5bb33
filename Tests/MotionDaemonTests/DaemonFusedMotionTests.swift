// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionConcurrency
import MotionDaemonClient
import MotionFusion
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

    // When the last fused-motion client leaves, the daemon stops fusing and frees the sensors.
    try waitUntil(seconds: 10, "the fused-motion subscriptions gone") {
      try blocking { try await observer.status() }.clients.allSatisfy {
        $0.subscriptions.allSatisfy { !$0.fusedMotion }
      }
    }
    try waitUntil(seconds: 10, "the gyroscope off again") {
      try !blocking { try await observer.status() }.sourceSensors.contains(.gyroscope)
    }
    source.client.close()
    observer.close()
    try daemon.terminate()
  }
}
