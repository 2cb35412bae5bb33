// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import SourceComposition
import XCTest

@testable import MotionDashboard

/// Starting some sources blocks: a phone-stream server binds its port and waits for its task, a
/// daemon source does a handshake. The hub is an actor, on Swift concurrency's shared threads,
/// and used to start and stop its source on them: a page's connection waited for the source, and
/// on a one-processor machine the phone-stream server's task waited for the very thread its
/// start was blocking (its start failed after 5 s). Sources now start and stop on a queue of the
/// hub's own.
final class DashboardSlowSourceTests: XCTestCase {
  func testAPageConnectsWithoutWaitingForItsSourceToStart() async throws {
    let specification = SourceSpecification.simulator(scenario: "walk", speed: .multiplier(1))
    let source = GatedSource(try SourceFactory.makeSource(specification))
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "dashboard-slow-source-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let recorder = DashboardRecorder(directory: directory)
    let feed = DashboardFeed(
      specification: specification, source: source, frame: .xArbitraryZVertical, rate: 50,
      recorder: recorder)
    let hub = DashboardHub(
      feed: feed, recorder: recorder, hasHistory: false, stopsSourceWhenIdle: true,
      makeSource: { try SourceFactory.makeSource($0) })
    // The source opens after 10 s whatever happens, so that a hub that waits for it ends too.
    DispatchQueue.global().asyncAfter(deadline: .now() + 10) { source.open() }

    let started = Date()
    let (id, _) = await hub.connect()
    XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the connection waited for the source")
    source.open()
    let deadline = Date(timeIntervalSinceNow: 60)
    while !feed.isStarted, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
    XCTAssertTrue(feed.isStarted)
    // The last page leaves: the idle source is stopped (on the hub's queue, in order).
    await hub.disconnect(id)
    while feed.isStarted, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
    XCTAssertFalse(feed.isStarted)
    await hub.shutDown()
  }
}

/// A source whose subscriptions wait until ``open()``.
private final class GatedSource: SensorSource, @unchecked Sendable {
  // Sendable because `isOpen` is read and written only while `condition` is locked.
  private let inner: any SensorSource
  private let condition = NSCondition()
  private var isOpen = false

  init(_ inner: any SensorSource) {
    self.inner = inner
  }

  var name: String { inner.name }
  var availableSensors: SensorSet { inner.availableSensors }
  var supportedSampleRates: ClosedRange<Double> { inner.supportedSampleRates }

  func open() {
    condition.lock()
    isOpen = true
    condition.broadcast()
    condition.unlock()
  }

  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    condition.lock()
    while !isOpen { condition.wait() }
    condition.unlock()
    return inner.subscribe(requestedSampleRate: requestedSampleRate, handler)
  }
}
