// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import XCTest
import _MotionTestSupport

@testable import MotionDaemon

/// The daemon's dashboard removes `dashboard.url` (where `motionctl dashboard` finds it) when it
/// stops. The removal was the last step of the dashboard's task, which needs a thread of Swift
/// concurrency's pool: while every one was busy the stop returned after its 5 s wait and the file
/// stayed, naming a port nobody served, until a thread was free.
///
/// XCTest, not Swift Testing: its tests run on a thread of their own, outside the pool that this
/// test fills, and one at a time.
final class DaemonDashboardStopTests: XCTestCase {
  func testTheURLFileIsRemovedAtStopWhileEveryPoolThreadIsBusy() throws {
    let harness = HandDrivenDaemon(label: "dashboard-stop")
    defer { harness.removeDirectory() }
    let daemon = try harness.start()
    defer { daemon.stop() }
    let dashboard = DaemonDashboard(
      settings: DaemonDashboardSettings(port: 0), daemon: daemon, logger: Logger(label: "test"))
    defer { dashboard.stop() }
    let urlFile = DaemonDashboard.urlFilePath(socketPath: harness.configuration.socketPath)
    // A failure bound: the dashboard listens within milliseconds on an idle machine.
    let deadline = Date(timeIntervalSinceNow: 60)
    while !FileManager.default.fileExists(atPath: urlFile), Date() < deadline { usleep(10_000) }
    XCTAssertNotNil(MotionDaemon.dashboardURL(socketPath: harness.configuration.socketPath))

    // The dashboard's task was made on this thread, so the blocker's tasks, made here too, take
    // the threads of its priority.
    let blocker = PoolBlocker()
    defer { blocker.release() }
    XCTAssertEqual(
      blocker.occupyThePool(), PoolBlocker.poolWidth, "not every pool thread was taken")
    dashboard.stop()
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: urlFile), "the URL file outlived the stop")
    blocker.release()
  }

  /// A server whose start comes after the stop (its task late for a pool thread) writes no file:
  /// nothing would remove it then.
  func testTheURLFileIsNotWrittenAfterTheStop() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("dashboard-url-\(UUID().uuidString)").path
    defer { unlink(path) }
    let file = DaemonDashboard.URLFile(path: path)
    XCTAssertEqual(file.write("http://127.0.0.1:1/\n"), .written)
    XCTAssertTrue(FileManager.default.fileExists(atPath: path))
    file.remove()
    XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    // Neither written nor a failure to warn of, and no "dashboard at" line for a server stopped
    // before it ran.
    XCTAssertEqual(file.write("http://127.0.0.1:1/\n"), .ended)
    XCTAssertFalse(FileManager.default.fileExists(atPath: path), "written after the stop")
  }
}
