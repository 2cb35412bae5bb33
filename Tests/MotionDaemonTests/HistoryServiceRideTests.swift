// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import MotionSensors
import Testing
import _MotionTestSupport

@testable import MotionDaemon

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

  /// The detector finds 1,593 steps in this 15 min walk, and the daemon counts them all.
  @Test func aWalkKeepsEveryStep() throws {
    guard let steps = try daemonSteps(replaying: "walk_user1.csv") else { return }
    #expect((1585...1601).contains(steps), "\(steps) steps")
  }
}
