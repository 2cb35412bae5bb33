// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionDaemon

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `motionctl dashboard` first reads the URL a running daemon wrote beside its socket. Without
/// XDG_RUNTIME_DIR that folder is in /tmp, where another user may have put anything: a FIFO
/// named `dashboard.url` passed the size check (a FIFO's size is 0) and the read then blocked
/// for ever. (Found by the hostile-input review of 2026-11-30.)
final class DaemonDashboardURLFileTests: XCTestCase {
  func testAFIFOInPlaceOfTheURLFileIsPassedOverAtOnce() throws {
    let folder = try makeFolder()
    let socket = folder.appendingPathComponent("motiond.sock").path
    let urlFile = DaemonDashboard.urlFilePath(socketPath: socket)
    XCTAssertEqual(mkfifo(urlFile, 0o600), 0)
    let started = Date()
    XCTAssertNil(MotionDaemon.dashboardURL(socketPath: socket))
    XCTAssertLessThan(Date().timeIntervalSince(started), 2, "no wait for a writer")
  }

  func testTheURLFileIsReadAndALongOneIsNotOurs() throws {
    let folder = try makeFolder()
    let socket = folder.appendingPathComponent("motiond.sock").path
    let urlFile = DaemonDashboard.urlFilePath(socketPath: socket)
    try "http://127.0.0.1:8080/?token=abc\n".write(
      toFile: urlFile, atomically: true, encoding: .utf8)
    XCTAssertEqual(
      MotionDaemon.dashboardURL(socketPath: socket)?.absoluteString,
      "http://127.0.0.1:8080/?token=abc")
    try String(repeating: "x", count: 5000).write(
      toFile: urlFile, atomically: true, encoding: .utf8)
    XCTAssertNil(MotionDaemon.dashboardURL(socketPath: socket))
  }

  private func makeFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("dashboard-url-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
    return folder
  }
}
