// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDaemonClient
import Testing
import _MotionTestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The dashboard served by `motiond --dashboard-port` (in the serialized suite: daemon tests
/// running side by side timed out on this machine before).
extension DaemonProcessTests {
  @Test func theDaemonServesTheDashboardWithItsHistoryAndClients() throws {
    let daemon = try DaemonProcess(
      source: "simulator:tour?speed=4", extraArguments: ["--dashboard-port", "0"])
    let urlFile = (daemon.socketPath as NSString).deletingLastPathComponent + "/dashboard.url"
    try waitUntil(seconds: 60, "the dashboard's URL file") {
      FileManager.default.fileExists(atPath: urlFile)
    }
    let mode = try #require(
      FileManager.default.attributesOfItem(atPath: urlFile)[.posixPermissions] as? Int)
    #expect(mode == 0o600)
    let text = try String(contentsOfFile: urlFile, encoding: .utf8).trimmingCharacters(
      in: .whitespacesAndNewlines)
    let page = try #require(URL(string: text))
    let token = try #require(
      URLComponents(url: page, resolvingAgainstBaseURL: false)?.queryItems?.first {
        $0.name == "token"
      }?.value)
    #expect(token.count == 32)
    #expect(page.host == "127.0.0.1")
    let port = try #require(page.port)
    let base = "http://127.0.0.1:\(port)"

    // The daemon's dashboard needs its token on loopback too (the port is open to every user).
    #expect(try Self.get(base + "/").status == 401)
    #expect(try Self.get(base + "/api/history").status == 401)
    let (pageStatus, pageBody) = try Self.get(text)
    #expect(pageStatus == 200)
    #expect(pageBody.contains("data-testid=\"phone-3d\""))

    // Live frames, read through the daemon's own socket.
    var socket: WebSocketTestClient? = try WebSocketTestClient(
      url: try #require(URL(string: "ws://127.0.0.1:\(port)/ws?token=\(token)")))
    let hello = try Self.object(try #require(socket).readText())
    #expect(hello["type"] as? String == "hello")
    #expect(hello["history"] as? Bool == true)
    #expect((hello["source"] as? String)?.hasPrefix("daemon") == true)
    var motionFrames = 0
    try waitUntil(seconds: 60, "data frames with device motion") {
      let frame = try Self.object(try #require(socket).readText())
      if frame["type"] as? String == "data", let motion = frame["motion"] as? [[Any]],
        !motion.isEmpty
      {
        motionFrames += 1
      }
      return motionFrames >= 3
    }

    // The history panel: seven local days ending today, and the clients with their rates. The
    // dashboard's own connection is one of them: it comes from the daemon's process.
    let (historyStatus, historyBody) = try Self.get(base + "/api/history?token=\(token)")
    #expect(historyStatus == 200)
    let history = try Self.object(historyBody)
    let days = try #require(history["days"] as? [[String: Any]])
    #expect(days.count == 7)
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd"
    #expect(days.last?["date"] as? String == formatter.string(from: Date()))
    #expect(days.allSatisfy { $0["steps"] is Int && $0["activitySeconds"] is [String: Any] })
    // One listed day in detail (its hours and timeline); a day before the seven is not answered.
    let today = try #require(days.last?["date"] as? String)
    let (dayStatus, dayBody) = try Self.get(base + "/api/history/day?date=\(today)&token=\(token)")
    #expect(dayStatus == 200)
    let detail = try Self.object(dayBody)
    #expect(detail["date"] as? String == today)
    #expect((23...25).contains((detail["hours"] as? [Any])?.count ?? 0), "\(detail)")
    #expect(detail["segments"] is [Any])
    let weekAgo = formatter.string(from: Date(timeIntervalSinceNow: -8 * 86_400))
    #expect(try Self.get(base + "/api/history/day?date=\(weekAgo)&token=\(token)").status == 404)
    // While history is denied no day is answered (`/api/history` then lists none either).
    let settings = DaemonClient(socketPath: daemon.socketPath, clientName: "motionctl")
    let todayURL = base + "/api/history/day?date=\(today)&token=\(token)"
    try blocking { try await settings.setHistoryAllowed(false) }
    try waitUntil(seconds: 30, "no day while history is denied") {
      try Self.get(todayURL).status == 404
    }
    let whileDenied = try Self.object(try Self.get(base + "/api/history?token=\(token)").body)
    #expect((whileDenied["days"] as? [Any])?.isEmpty == true, "\(whileDenied)")
    try blocking { try await settings.setHistoryAllowed(true) }
    try waitUntil(seconds: 30, "today again once history is allowed") {
      try Self.get(todayURL).status == 200
    }
    let clients = try #require(history["clients"] as? [[String: Any]])
    #expect(
      clients.contains {
        $0["processIdentifier"] as? Int == Int(daemon.process.processIdentifier)
          && ($0["rate"] as? Double ?? 0) > 0
      }, "\(clients)")

    // The last page closed: the dashboard unsubscribes (its connection stays, without a rate) ...
    socket = nil
    try waitUntil(seconds: 30, "the dashboard to unsubscribe after its last page closed") {
      let clients = try Self.object(try Self.get(base + "/api/history?token=\(token)").body)[
        "clients"]
      return (clients as? [[String: Any]] ?? []).contains {
        $0["processIdentifier"] as? Int == Int(daemon.process.processIdentifier)
          && $0["rate"] == nil
      }
    }
    // ... and the next page gets live frames again.
    let again = try WebSocketTestClient(
      url: try #require(URL(string: "ws://127.0.0.1:\(port)/ws?token=\(token)")))
    var framesAgain = 0
    try waitUntil(seconds: 60, "data frames with device motion after reopening") {
      let frame = try Self.object(try again.readText())
      if frame["type"] as? String == "data", let motion = frame["motion"] as? [[Any]],
        !motion.isEmpty
      {
        framesAgain += 1
      }
      return framesAgain >= 3
    }

    // `motionctl dashboard` without a source points at the daemon's page instead of serving one.
    let motionctl = try ChildProcess.run(
      DaemonProcess.productsDirectory.appendingPathComponent("motionctl"), arguments: ["dashboard"],
      environment: [
        "XDG_RUNTIME_DIR": daemon.directory.appendingPathComponent("run").path,
        "COREMOTION_SOURCE": nil,
        "MOTIOND_SOCKET": nil,
      ],
      timeout: 60)
    #expect(motionctl.status == 0, "\(motionctl.standardError)")
    #expect(motionctl.standardOutput.contains(text), "\(motionctl.standardOutput)")

    // SIGTERM stops both cleanly and removes the URL file.
    withExtendedLifetime(again) {}
    #expect(try daemon.terminate() == 0)
    #expect(!FileManager.default.fileExists(atPath: urlFile))
  }

  private static func get(_ text: String) throws -> (status: Int, body: String) {
    guard let url = URL(string: text) else {
      throw DaemonProcess.Failure(description: "bad URL \(text)")
    }
    return try blocking {
      let (data, response) = try await URLSession.shared.data(from: url)
      return (
        (response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self)
      )
    }
  }

  private static func object(_ text: String) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    else {
      throw DaemonProcess.Failure(description: "not a JSON object: \(text.prefix(200))")
    }
    return object
  }
}
