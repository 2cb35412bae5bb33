// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDashboard
import OpenCoreMotion
import XCTest

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The server in this process, over HTTP on loopback: the page, the history endpoint and the
/// token rule (the WebSocket frames are exercised by the browser tests).
final class DashboardServerTests: XCTestCase {
  /// Starts a server on a free port and returns its URL and the task running it.
  static func start(
    _ configuration: DashboardConfiguration
  ) async throws -> (URL, Task<Void, any Error>) {
    let (urls, continuation) = AsyncStream.makeStream(of: URL.self)
    let server = DashboardServer(configuration: configuration)
    // The stream ends when the server stops, so a server that cannot start fails the test
    // instead of hanging it.
    let task = Task {
      defer { continuation.finish() }
      try await server.run(onRunning: { continuation.yield($0) })
    }
    for await url in urls { return (url, task) }
    _ = try await task.value
    throw XCTSkip("unreachable: the server stopped without an error before listening")
  }

  private func get(_ url: URL) async throws -> (Int, String) {
    let (data, response) = try await URLSession.shared.data(from: url)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
  }

  func testServesThePageAndNoHistoryWithoutTheDaemon() async throws {
    let configuration = DashboardConfiguration(port: 0, source: .simulator(scenario: "flat"))
    let (url, task) = try await Self.start(configuration)
    defer { task.cancel() }
    let (status, page) = try await get(url)
    XCTAssertEqual(status, 200)
    XCTAssertTrue(page.contains("data-testid=\"phone-3d\""))
    let (scriptStatus, script) = try await get(url.appendingPathComponent("dashboard.js"))
    XCTAssertEqual(scriptStatus, 200)
    XCTAssertTrue(script.contains("new WebSocket"))
    let (historyStatus, _) = try await get(url.appendingPathComponent("api/history"))
    XCTAssertEqual(historyStatus, 404)
    let (missingStatus, _) = try await get(url.appendingPathComponent("Package.swift"))
    XCTAssertEqual(missingStatus, 404)
  }

  func testTokenIsRequiredWhenGivenAndHistoryIsServedFromTheProvider() async throws {
    struct History: DashboardHistoryProvider {
      func history() async throws -> DashboardHistory {
        DashboardHistory(
          days: [.init(date: "2026-11-23", steps: 1234, activitySeconds: ["walking": 600])],
          recorderStart: nil,
          recorderEnd: nil, clients: [.init(name: "test", processIdentifier: 1, rate: 50)])
      }
    }
    let token = DashboardConfiguration.makeToken()
    let configuration = DashboardConfiguration(
      port: 0, token: token, source: .simulator(scenario: "flat"), history: History())
    let (url, task) = try await Self.start(configuration)
    defer { task.cancel() }
    XCTAssertTrue(url.absoluteString.hasSuffix("?token=\(token)"))
    var bare = URLComponents(url: url, resolvingAgainstBaseURL: false)!
    bare.query = nil
    let (refused, _) = try await get(bare.url!)
    XCTAssertEqual(refused, 401)
    var wrong = bare
    wrong.query = "token=" + String(repeating: "0", count: 32)
    let (wrongStatus, _) = try await get(wrong.url!)
    XCTAssertEqual(wrongStatus, 401)
    let (accepted, _) = try await get(url)
    XCTAssertEqual(accepted, 200)
    var history = bare
    history.path = "/api/history"
    history.query = "token=\(token)"
    let (historyStatus, body) = try await get(history.url!)
    XCTAssertEqual(historyStatus, 200)
    XCTAssertTrue(body.contains("\"steps\":1234"), body)
  }

  func testExposedAddressWithoutTokenIsRefused() async {
    let server = DashboardServer(
      configuration: DashboardConfiguration(host: "0.0.0.0", port: 0, source: .none))
    do {
      try await server.run()
      XCTFail("an exposed dashboard started without a token")
    } catch let error as DashboardError {
      XCTAssertTrue("\(error)".contains("token"))
    } catch {
      XCTFail("unexpected error \(error)")
    }
  }
}
