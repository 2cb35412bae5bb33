// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionDashboard
import MotionDetectors
import MotionEvaluation
import MotionMath
import MotionSensors
import OpenCoreMotion
import Testing

@_spi(Benchmarks) @testable import MotionDaemon

/// Every place that sums a distance gives the same distance for the same samples: `CMPedometer`'s
/// in-process history, the daemon's history, the dashboard and `motionctl steps`. Each measured
/// the cadence its own way before (the daemon with a running mean never reset between bouts, so
/// a walk after a run began with running strides; the dashboard over 4 s; `motionctl steps` over
/// four intervals, looking ahead for a bout's first step); now all use ``StepCadence``.
@Suite struct StepDistanceAgreementTests {
  /// A simulated run, 4 s without samples, then a simulated walk.
  func runThenWalk() throws -> [MotionSample] {
    var run = SimulatedSensorStream(scenario: try Scenario.named("run"))
    let running = try run.collect()
    let walkStart = try #require(running.last?.timestamp) + 4
    var walk = SimulatedSensorStream(scenario: try Scenario.named("walk"))
    let walking = try walk.collect().map { sample -> MotionSample in
      var shifted = sample
      shifted.timestamp += walkStart
      return shifted
    }
    return running + walking
  }

  @Test func theSameSamplesGiveTheSameDistanceEverywhere() throws {
    let samples = try runThenWalk()
    let lastTimestamp = try #require(samples.last?.timestamp)

    // The daemon's history service.
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("distance-agreement-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let service = HistoryService(
      settings: .init(directory: directory), logger: Logger(label: "test"))
    var daemon = (steps: UInt64(0), distance: 0.0)
    for sample in samples {
      for update in service.process(sample, now: 1_000_000 + sample.timestamp)
      where update.kind == .pedometer {
        daemon = (update.wire.pedometer.steps, update.wire.pedometer.distance)
      }
    }

    // The dashboard.
    var adapter = PedometerAdapter()
    for sample in samples {
      if let rate = sample.gyroscope { adapter.process(time: sample.timestamp, rotationRate: rate) }
      if let force = sample.accelerometer {
        _ = adapter.process(
          time: sample.timestamp,
          acceleration: Units.coreMotionAcceleration(fromSpecificForce: force))
      }
    }

    // CMPedometer's in-process history, every sample delivered by a virtual clock.
    let clock = VirtualClock()
    let descriptor = SimulatedSensorStream(scenario: try Scenario.named("walk")).descriptor
    let player = StreamPlayer(
      ArraySampleStream(samples, descriptor: descriptor), pacing: .virtual(clock))
    let anchor = Date(timeIntervalSince1970: 1_700_000_000)
    let history = InProcessMotionHistory(
      source: player, timeline: MotionTimeline(referenceDate: anchor, referenceTimestamp: 0))
    clock.advance(to: lastTimestamp + 10)
    let inProcess = history.pedometerSummary(from: .distantPast, to: .distantFuture)

    // `motionctl steps`: the pedometer's step times (the tracker every path above runs), summed
    // by the file tools' rule.
    var tracker = PedometerTracker()
    var stepTimes: [Double] = []
    for sample in samples {
      if let rate = sample.gyroscope { tracker.process(time: sample.timestamp, rotationRate: rate) }
      if let force = sample.accelerometer {
        _ = tracker.process(
          time: sample.timestamp,
          acceleration: Units.coreMotionAcceleration(fromSpecificForce: force))
        while let step = tracker.nextStep() { stepTimes.append(step) }
      }
    }
    let file = StepCount(stepTimes: stepTimes)

    #expect(daemon.steps > 60, "the run and the walk have steps")
    #expect(stepTimes.count == Int(daemon.steps))
    #expect(inProcess.numberOfSteps == Int(daemon.steps))
    #expect(adapter.snapshot.steps == Int(daemon.steps))
    let tolerance = 1e-9 * daemon.distance
    #expect(abs(inProcess.distance - daemon.distance) <= tolerance, "\(inProcess) \(daemon)")
    #expect(
      abs(adapter.snapshot.distance - daemon.distance) <= tolerance,
      "dashboard \(adapter.snapshot.distance) m, daemon \(daemon.distance) m")
    #expect(
      abs(file.distance - daemon.distance) <= tolerance,
      "motionctl steps \(file.distance) m, daemon \(daemon.distance) m")
    withExtendedLifetime(player) {}
  }
}
