// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import NIOPosix
import SourceComposition
import XCTest

@testable import MotionDashboard

/// Frames follow the data: the feed requests one every frame period while samples arrive, and a
/// slow heartbeat covers the time without samples (docs/Dashboard.md, "Frames that follow the
/// data").
final class DashboardFrameRequestTests: XCTestCase {
  /// A counter the request closure can bump from the state's lock.
  private final class Counter: @unchecked Sendable {
    // Protected by `lock`.
    private var value = 0
    private let lock = NSLock()
    func increment() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
  }

  func testRequestsKeepTheirScheduleOnASampleGridThatDoesNotDivideThePeriod() {
    let counter = Counter()
    var state = DashboardFeedState()
    state.frameRequestPeriod = 0.033
    state.requestFrame = { counter.increment() }
    // 100 Hz samples for 10 s; the broadcast takes each batch 2 ms after the request.
    var takeAt: Double?
    for index in 0..<1000 {
      let now = Double(index) * 0.01
      if let time = takeAt, now >= time {
        state.frameRequestArmed = true
        takeAt = nil
      }
      if let request = state.dueFrameRequest(now: now) {
        request()
        takeAt = now + 0.002
      }
    }
    // On schedule: 10 s / 33 ms = 303 (a period after each late request would give 250).
    XCTAssertEqual(Double(counter.count), 10 / 0.033, accuracy: 3)
  }

  func testNoRequestWhileTheLastFrameIsNotTakenAndTheScheduleRestartsAfterAPause() {
    let counter = Counter()
    var state = DashboardFeedState()
    state.frameRequestPeriod = 0.033
    state.requestFrame = { counter.increment() }
    XCTAssertNotNil(state.dueFrameRequest(now: 0))
    // Not taken: nothing more, however long it waits.
    XCTAssertNil(state.dueFrameRequest(now: 0.05))
    XCTAssertNil(state.dueFrameRequest(now: 5))
    state.frameRequestArmed = true
    // After the pause, one request now and the next a period later (no burst to catch up).
    XCTAssertNotNil(state.dueFrameRequest(now: 5.01))
    state.frameRequestArmed = true
    XCTAssertNil(state.dueFrameRequest(now: 5.03))
    XCTAssertNotNil(state.dueFrameRequest(now: 5.05))
  }

  func testWithoutARequesterNothingIsDue() {
    var state = DashboardFeedState()
    state.frameRequestPeriod = 0.033
    XCTAssertNil(state.dueFrameRequest(now: 1))
  }

  /// A page connected to a hub on an event loop gets about 30 frames a second from a 100 Hz
  /// simulation, every one with rows, and the heartbeat's frames (about two a second) once the
  /// source stops.
  func testAPageGetsFramesAtTheFrameRateWhileSamplesArriveAndHeartbeatsAfter() async throws {
    let simulated = try SimulatedDashboardHub(speed: 1, rate: 100)
    defer { simulated.removeRecordings() }
    let (hub, feed) = (simulated.hub, simulated.feed)
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    await hub.startFrameTimer(on: group.next())
    let (_, queue) = await hub.connect()

    let reader = Task {
      var frames: [(time: Double, hasMotionRows: Bool)] = []
      for await frame in queue.frames {
        guard let message = frame.text, message.contains("\"type\":\"data\"") else { continue }
        frames.append((monotonicSeconds(), message.contains("\"motion\":[[")))
      }
      return frames
    }
    try await Task.sleep(for: .seconds(3))
    feed.stop()
    let stoppedAt = monotonicSeconds()
    try await Task.sleep(for: .seconds(2.2))
    await hub.shutDown()
    try await group.shutdownGracefully()
    let frames = await reader.value

    // Skip the first half second (start-up), then count the frames while samples flowed.
    let flowing = frames.filter { $0.time < stoppedAt && $0.time > (frames.first?.time ?? 0) + 0.5 }
    let span = (flowing.last?.time ?? 0) - (flowing.first?.time ?? 0)
    let rate = Double(max(flowing.count - 1, 0)) / max(span, 1e-3)
    XCTAssertEqual(rate, 1 / DashboardHub.framePeriod, accuracy: 6, "\(flowing.count) frames")
    let withoutMotion = flowing.filter { !$0.hasMotionRows }.count
    XCTAssertEqual(withoutMotion, 0, "frames without device motion, of \(flowing.count)")
    // After the stop: about two a second, from the heartbeat alone.
    let after = frames.filter { $0.time > stoppedAt + 0.2 }
    XCTAssertGreaterThanOrEqual(after.count, 3, "heartbeat frames after the stop")
    XCTAssertLessThanOrEqual(after.count, 6, "heartbeat frames after the stop")
  }
}
