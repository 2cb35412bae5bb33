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
    var day = URLComponents(url: url, resolvingAgainstBaseURL: false)!
    day.path = "/api/history/day"
    day.query = "date=2026-11-23"
    let (dayStatus, _) = try await get(day.url!)
    XCTAssertEqual(dayStatus, 404)
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
    var configuration = DashboardConfiguration(
      port: 0, token: token, source: .simulator(scenario: "flat"))
    configuration.history = History()
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

  /// A provider that answers for one day, 2026-11-23.
  struct OneDayHistory: DashboardHistoryProvider {
    static let detail = DashboardHistoryDayDetail(
      date: "2026-11-23", start: 1_795_388_400, end: 1_795_474_800,
      hours: (0..<24).map { .init(start: 1_795_388_400 + Double($0) * 3600, hour: $0, steps: $0) },
      segments: [
        .init(
          start: 1_795_388_400, end: 1_763_856_000, activities: ["stationary", "automotive"],
          confidence: "high")
      ])

    func history() async throws -> DashboardHistory {
      DashboardHistory(
        days: [.init(date: "2026-11-23", steps: 276, activitySeconds: [:])], recorderStart: nil,
        recorderEnd: nil, clients: [])
    }

    func dayDetail(_ date: String) async throws -> DashboardHistoryDayDetail? {
      date == Self.detail.date ? Self.detail : nil
    }
  }

  /// `GET /api/history/day?date=`: the provider's detail as JSON; 400 for a date that is missing,
  /// repeated, malformed or not a real date; 404 for a day the provider does not answer for.
  func testOneDayOfHistoryIsServedForAWellFormedDateOnly() async throws {
    let token = DashboardConfiguration.makeToken()
    var configuration = DashboardConfiguration(
      port: 0, token: token, source: .simulator(scenario: "flat"))
    configuration.history = OneDayHistory()
    let (url, task) = try await Self.start(configuration)
    defer { task.cancel() }
    func day(_ query: String?, token sendsToken: Bool = true) async throws -> (Int, String) {
      var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
      components.path = "/api/history/day"
      let parts = [query, sendsToken ? "token=\(token)" : nil].compactMap { $0 }
      components.percentEncodedQuery = parts.isEmpty ? nil : parts.joined(separator: "&")
      return try await get(components.url!)
    }

    // The token rule holds here as everywhere (asked first: URLSession keeps the cookie that a
    // request with the token gets).
    let (refused, _) = try await day("date=2026-11-23", token: false)
    XCTAssertEqual(refused, 401)
    let (status, body) = try await day("date=2026-11-23")
    XCTAssertEqual(status, 200, body)
    let decoded = try JSONDecoder().decode(DashboardHistoryDayDetail.self, from: Data(body.utf8))
    XCTAssertEqual(decoded, OneDayHistory.detail)
    XCTAssertTrue(body.contains("\"activities\":[\"stationary\",\"automotive\"]"), body)

    // Well-formed dates the provider does not answer for (outside its days).
    for date in ["2026-11-22", "2024-02-29", "9999-12-31", "0001-01-01"] {
      let (status, body) = try await day("date=\(date)")
      XCTAssertEqual(status, 404, "\(date): \(body)")
    }
    // Missing, repeated, malformed or impossible dates.
    let long = "2026-11-23" + String(repeating: "0", count: 10_000)
    let malformed = [
      nil, "date=", "day=2026-11-23", "date=2026-11-23&date=2026-11-23", "date=2026-11-3",
      "date=2026-1-23", "date=26-11-23", "date=2026/11/23", "date=2026-11-23T00:00",
      "date=%202026-11-23", "date=2026-11-2%33x", "date=2026-02-29", "date=2026-04-31",
      "date=2026-13-01", "date=2026-00-10", "date=2026-11-00", "date=0000-01-01",
      "date=-026-11-23", "date=2026-11-+3", "date=%EF%BC%92026-11-23", "date=\(long)",
      "date=1e10-11-23", "date=2026-11-23%00",
    ]
    for query in malformed {
      let (status, body) = try await day(query)
      XCTAssertEqual(status, 400, "\(query ?? "no query"): \(body)")
      XCTAssertTrue(body.contains("YYYY-MM-DD"), body)
    }
    // Percent-encoding is undone before the check: an encoded dash is still a dash.
    let (encoded, _) = try await day("date=2026%2D11%2D23")
    XCTAssertEqual(encoded, 200)
  }

  /// A provider written before the drill-down (only `history()`) answers no day.
  func testAProviderWithoutDayDetailAnswersNoDay() async throws {
    struct History: DashboardHistoryProvider {
      func history() async throws -> DashboardHistory {
        DashboardHistory(days: [], recorderStart: nil, recorderEnd: nil, clients: [])
      }
    }
    var configuration = DashboardConfiguration(
      port: 0, source: .simulator(scenario: "flat"))
    configuration.history = History()
    let (url, task) = try await Self.start(configuration)
    defer { task.cancel() }
    var day = URLComponents(url: url, resolvingAgainstBaseURL: false)!
    day.path = "/api/history/day"
    day.query = "date=2026-11-23"
    let (status, _) = try await get(day.url!)
    XCTAssertEqual(status, 404)
    day.query = "date=2026-11-31"
    let (malformed, _) = try await get(day.url!)
    XCTAssertEqual(malformed, 400)
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
