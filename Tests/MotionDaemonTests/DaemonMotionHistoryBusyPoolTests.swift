// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import XCTest
import _MotionTestSupport

@testable import OpenCoreMotion

/// The Core Motion history queries are synchronous, and on the daemon they wait for its answer.
/// They used to wait for a `Task` that asked the question, which needs a thread of Swift
/// concurrency's shared pool: in a process whose pool threads were all busy (an app's own
/// blocking work, or a loaded parallel test run) every query timed out and fell back to what the
/// process saw itself. The wait now needs no pool thread.
///
/// XCTest, not Swift Testing: its tests run on a thread of their own, outside the pool that this
/// test fills, and one at a time.
final class DaemonMotionHistoryBusyPoolTests: XCTestCase {
  func testAQueryIsAnsweredWhileEveryPoolThreadIsBusy() throws {
    let daemon = try FakeDaemon()
    daemon.pedometerSteps = 1_234
    let source = try DaemonSource(socketPath: daemon.path)
    defer { source.client.close() }
    let live = InProcessMotionHistory(source: source, startsObserving: false)
    // Long enough for a Task to be scheduled on an idle pool many times over; short enough that
    // a wait that needs the pool fails in reasonable time.
    let history = DaemonMotionHistory(client: source.client, live: live, queryTimeout: 5)

    // Occupies every thread of the pool (its width is the number of processors) until released.
    // The pool has threads of its own per priority: these tasks inherit this thread's, as a task
    // made on this thread to ask the daemon would.
    let blocker = PoolBlocker()
    defer { blocker.release() }
    XCTAssertEqual(
      blocker.occupyThePool(), PoolBlocker.poolWidth, "not every pool thread was taken")

    let now = Date()
    let summary = history.pedometerSummary(from: now.addingTimeInterval(-3_600), to: now)
    XCTAssertEqual(summary.numberOfSteps, 1_234, "the daemon's count, not the process's own")
    // Live updates from a past date open with the daemon's totals, asked from a queue of the
    // history's own (the global queues share the pool's threads on Linux).
    let slowStart = DaemonMotionHistory(
      client: source.client, live: live, queryTimeout: 5, startWait: 3)
    let totals = slowStart.pedometerUpdates(from: now.addingTimeInterval(-3_600))
    XCTAssertEqual(totals(Date()).numberOfSteps, 1_234, "the opening update has the daemon's steps")
    blocker.release()
    withExtendedLifetime(daemon) {}
  }
}
