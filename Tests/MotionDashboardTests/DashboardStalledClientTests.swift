// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

/// End to end with a stalled tab: `motionctl dashboard` in its own process, one WebSocket that
/// never reads (a tiny receive window, so the server's socket fills within seconds) and one that
/// reads normally. The server must hold the stalled one to its bounded queue (drops counted in
/// every frame's `server.droppedFrames`), keep its memory flat, and keep the normal page fresh.
final class DashboardStalledClientTests: XCTestCase {
  func testAStalledConnectionIsBoundedAndAnotherPageStaysFresh() throws {
    let motionctl = try XCTUnwrap(
      DashboardBrowserTests.motionctlPath(), "the motionctl binary was not built")
    // 4× real time at 100 Hz: frames of about 5 kB, 30 per second (less on a loaded machine).
    let server = try DashboardProcess(
      motionctl: motionctl,
      arguments: [
        "dashboard", "--source", "simulator:tour?speed=4", "--port", "0", "--rate", "100",
      ])
    defer { server.stop() }
    let page = try server.waitForURL(seconds: 120)
    let port = try XCTUnwrap(page.port)
    // The page's token (motionctl dashboard has one on loopback too) goes with the WebSocket.
    let query = page.query.map { "?" + $0 } ?? ""
    let webSocket = try XCTUnwrap(URL(string: "ws://127.0.0.1:\(port)/ws\(query)"))

    let stalled = try WebSocketTestClient(url: webSocket, receiveBufferBytes: 4096)
    let healthy = try WebSocketTestClient(url: webSocket)

    // Warm-up: the source started with the first page; let the server's buffers reach their
    // working size before taking the memory baseline.
    var frames = 0
    var bytes = 0
    var latest: [String: Any] = [:]
    func readData() throws {
      let text = try healthy.readText()
      guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
        object["type"] as? String == "data"
      else { return }
      frames += 1
      bytes += text.utf8.count
      latest = object
    }
    let warmUpEnd = Date(timeIntervalSinceNow: 3)
    while Date() < warmUpEnd { try readData() }
    let baseline = try XCTUnwrap(residentKilobytes(server.processIdentifier))
    frames = 0
    bytes = 0

    // Stall for 15 s (the server closes a connection that leaves its pings unanswered for 60 s).
    let start = Date()
    var peak = baseline
    var lastSequence = (latest["seq"] as? Int) ?? 0
    var sequenceWentBack = false
    let deadline = Date(timeIntervalSinceNow: 15)
    var serverDropped = 0
    while Date() < deadline {
      try readData()
      let sequence = (latest["seq"] as? Int) ?? 0
      if sequence <= lastSequence { sequenceWentBack = true }
      lastSequence = sequence
      if frames % 15 == 0, let resident = residentKilobytes(server.processIdentifier) {
        peak = max(peak, resident)
      }
      serverDropped = ((latest["server"] as? [String: Any])?["droppedFrames"] as? Int) ?? 0
    }
    let elapsed = Date().timeIntervalSince(start)
    let client = try XCTUnwrap(latest["client"] as? [String: Any])
    let ownDropped = try XCTUnwrap(client["droppedFrames"] as? Int)
    let ownSent = try XCTUnwrap(client["sentFrames"] as? Int)
    let serverTime = try XCTUnwrap(latest["serverTime"] as? Double)
    let age = Date().timeIntervalSince1970 - serverTime / 1000
    let averageFrame = bytes / max(frames, 1)
    let growth = peak - baseline
    print(
      "stalled-tab test: \(serverDropped) frames dropped for the stalled tab in \(String(format: "%.1f", elapsed)) s"
        + " (≈ \(serverDropped * averageFrame / 1024) KiB not queued); server RSS \(baseline) → peak \(peak) KiB"
        + " (+\(growth) KiB); healthy tab: \(frames) frames of \(averageFrame) B, dropped \(ownDropped) of"
        + " \(ownSent + ownDropped) (frames held for the stalled tab: \(ownSent + ownDropped - serverDropped + ownDropped)), last frame \(String(format: "%.3f", age)) s old"
    )

    XCTAssertGreaterThanOrEqual(
      serverDropped, 60, "the stalled connection's frames were not dropped in \(elapsed) s")
    // Both tabs were offered the same frames. What the stalled one was offered and not dropped
    // sits in its queue (8) or its socket (the bounded send buffer, 256 KiB after Linux doubles
    // it, plus the 4 KiB receive window): it must not grow with the stall.
    let offered = ownSent + ownDropped
    let held = offered - (serverDropped - ownDropped)
    let allowance = 20 + 300_000 / max(averageFrame, 1)
    XCTAssertLessThanOrEqual(
      held, allowance, "\(held) of \(offered) frames held for the stalled tab")
    XCTAssertEqual((latest["server"] as? [String: Any])?["clients"] as? Int, 2)
    // The healthy tab reads as fast as frames come: it may lose a frame in a scheduling hiccup of
    // this loaded machine, never a steady share.
    XCTAssertLessThanOrEqual(
      ownDropped * 20, ownSent, "the healthy tab lost \(ownDropped) of \(ownSent)")
    XCTAssertFalse(sequenceWentBack, "frame sequence numbers must increase")
    // Fresh: the newest frame left the server moments ago (2 s: generous for a loaded machine;
    // a backlog behind the stalled connection would grow without bound instead).
    XCTAssertLessThan(age, 2, "the healthy tab's frames are \(age) s old")
    // Memory: the frames withheld from the stalled tab are not kept. Allow 8 MiB for allocator
    // and buffer noise (the figures are printed above).
    XCTAssertLessThan(growth, 8 * 1024, "server RSS grew by \(growth) KiB while a tab stalled")
    withExtendedLifetime(stalled) {}
  }

  /// `VmRSS` of a process, KiB.
  private func residentKilobytes(_ processIdentifier: Int32) -> Int? {
    guard
      let status = try? String(contentsOfFile: "/proc/\(processIdentifier)/status", encoding: .utf8)
    else {
      return nil
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
    return nil
  }
}

/// `motionctl dashboard` running for a test; its standard output is collected to learn the URL.
final class DashboardProcess: Sendable {
  private let process: ChildProcess

  init(motionctl: String, arguments: [String]) throws {
    process = try ChildProcess(
      URL(fileURLWithPath: motionctl), arguments: arguments, standardError: .discard)
  }

  var processIdentifier: Int32 { process.processIdentifier }

  /// The page's URL once the server prints it.
  func waitForURL(seconds: Double) throws -> URL {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while Date() < deadline {
      let text = process.standardOutput
      if let range = text.range(of: "http://"),
        let url = URL(string: String(text[range.lowerBound...].prefix { !$0.isWhitespace }))
      {
        return url
      }
      guard process.isRunning else { break }
      usleep(50_000)
    }
    throw Failure(
      description:
        "motionctl dashboard printed no URL in \(seconds) s; its output: \(process.standardOutput)")
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// SIGTERM, then SIGKILL after 10 s.
  func stop() { process.stop(grace: 10) }

  deinit { stop() }
}
