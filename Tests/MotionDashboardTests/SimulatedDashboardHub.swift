// SPDX-License-Identifier: Apache-2.0

import Foundation
import SourceComposition

@testable import MotionDashboard

/// A hub over a feed of the simulator's `walk`, recording into a temporary folder that
/// ``removeRecordings()`` deletes: the set-up of the tests that drive a hub without a server.
struct SimulatedDashboardHub {
  let hub: DashboardHub
  let feed: DashboardFeed
  private let directory: URL

  /// The walk at `speed` times real time, with display rows at `rate` Hz.
  init(speed: Double, rate: Double) throws {
    let specification = SourceSpecification.simulator(scenario: "walk", speed: .multiplier(speed))
    let source = try SourceFactory.makeSource(specification)
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dashboard-hub-\(UUID().uuidString)")
    let recorder = DashboardRecorder(directory: directory)
    feed = DashboardFeed(
      specification: specification, source: source, frame: .xArbitraryZVertical, rate: rate,
      recorder: recorder)
    hub = DashboardHub(
      feed: feed, recorder: recorder, hasHistory: false,
      makeSource: { try SourceFactory.makeSource($0) })
  }

  func removeRecordings() {
    try? FileManager.default.removeItem(at: directory)
  }
}
