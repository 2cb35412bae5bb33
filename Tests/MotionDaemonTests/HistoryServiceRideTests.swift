// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors
import Testing
import _MotionTestSupport

@_spi(Benchmarks) @testable import MotionDaemon

/// The daemon counts steps as `CMPedometer` does: a bicycle ride's pedalling stays out of its
/// count (its `RidingStepGate`), a walk keeps every step. QROWD/TR recordings (MIT, QROWD project
/// 2018) from ../shared/data/activity, fed straight to the history service.
@Suite struct HistoryServiceRideTests {
  /// The cumulative step count of the daemon's live pedometer after the whole recording `name`.
  func daemonSteps(replaying name: String) throws -> UInt64? {
    let url = SharedData.root.appendingPathComponent("data/activity/qrowd/\(name)")
    guard FileManager.default.fileExists(atPath: url.path) else {
      #expect(!SharedData.isCI, "missing shared activity file \(url.path) on CI")
      return nil
    }
    let service = HistoryService(
      settings: .init(directory: FileManager.default.temporaryDirectory.path),
      logger: Logger(label: "test"))
    var stream = try RecordingReader.openIncludingSharedTables(url)
    var steps: UInt64 = 0
    while let sample = try stream.next() {
      for update in service.process(sample, now: 1_000_000 + sample.timestamp)
      where update.kind == .pedometer {
        steps = update.wire.pedometer.steps
      }
    }
    return steps
  }

  /// The step detector alone finds 710 steps in this 13 min ride (`motionctl steps` before the
  /// gate, 2026-11-28); the pedometer counts 0 of them since a walking report must last 5 s to
  /// give held steps back (38 before).
  @Test func aBicycleRideAddsFewSteps() throws {
    guard let steps = try daemonSteps(replaying: "bike_user1.csv") else { return }
    #expect(steps <= 20, "at most 3 % of the 710 pedalling 'steps'")
  }

  /// Stopped (a SIGTERM) in the first seconds of a walk after a bicycle ride, while the riding
  /// gate holds the walk's steps until the walk is confirmed, the daemon writes the steps the
  /// pedometer would give back at the end of a recording. Before, they were lost. QROWD user 1:
  /// 150 s of the bike file, then the walk file, stopped 2–20 s into the walk.
  @Test func stoppingWritesTheStepsStillHeld() throws {
    let folder = SharedData.root.appendingPathComponent("data/activity/qrowd")
    let bike = folder.appendingPathComponent("bike_user1.csv")
    let walk = folder.appendingPathComponent("walk_user1.csv")
    guard FileManager.default.fileExists(atPath: bike.path),
      FileManager.default.fileExists(atPath: walk.path)
    else {
      #expect(!SharedData.isCI, "missing shared activity files under \(folder.path) on CI")
      return
    }
    func samples(_ url: URL, until end: Double, shift: Double) throws -> [MotionSample] {
      var stream = try RecordingReader.openIncludingSharedTables(url)
      var kept: [MotionSample] = []
      while let sample = try stream.next(), sample.timestamp < end {
        var shifted = sample
        shifted.timestamp += shift
        kept.append(shifted)
      }
      return kept
    }
    let ride = try samples(bike, until: 150, shift: 0)
    let walking = try samples(walk, until: 20, shift: 150)
    let epoch = 1_000_000.0
    var heldAtSomeStop = false
    for stopAfter in Swift.stride(from: 2.0, through: 20, by: 2) {
      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("history-stop-\(UUID().uuidString)").path
      defer { try? FileManager.default.removeItem(atPath: directory) }
      let service = HistoryService(
        settings: .init(directory: directory), logger: Logger(label: "test"))
      service.start()
      var live: Int64 = 0
      for sample in ride + walking.prefix(while: { $0.timestamp < 150 + stopAfter }) {
        for update in service.process(sample, now: epoch + sample.timestamp)
        where update.kind == .pedometer {
          live = Int64(update.wire.pedometer.steps)
        }
      }
      service.stop()
      let store = try HistoryStore.open(directory: directory, logger: Logger(label: "test"))
      let stored = try store.pedometerTotals(from: epoch - 60, to: epoch + 600).steps
      store.close()
      // Never fewer than counted live; more only by what was held (a few seconds of steps).
      #expect(stored >= live, "stopped \(stopAfter) s in: stored \(stored), live \(live)")
      #expect(stored <= live + 40, "stopped \(stopAfter) s in: stored \(stored), live \(live)")
      if stored > live { heldAtSomeStop = true }
    }
    #expect(heldAtSomeStop, "no stop found steps held")
  }

  /// The detector finds 1,593 steps in this 15 min walk, and the daemon counts them all.
  @Test func aWalkKeepsEveryStep() throws {
    guard let steps = try daemonSteps(replaying: "walk_user1.csv") else { return }
    #expect((1585...1601).contains(steps), "\(steps) steps")
  }
}
