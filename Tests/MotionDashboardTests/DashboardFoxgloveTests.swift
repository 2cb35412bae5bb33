// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDashboard
import XCTest
import _MotionTestSupport

/// Foxglove's WebSocket protocol on the dashboard's own endpoint: the server in this process, a
/// client speaking `foxglove.websocket.v1` over loopback (on a thread of its own: it blocks).
final class DashboardFoxgloveTests: XCTestCase {
  private typealias JSON = [String: Any]

  func testAFoxgloveClientGetsTheChannelsItSubscribesTo() async throws {
    let configuration = DashboardConfiguration(port: 0, source: .simulator(scenario: "tour"))
    let (url, task) = try await DashboardServerTests.start(configuration)
    defer { task.cancel() }
    let port = try XCTUnwrap(url.port)
    try await onThread { try Self.exercise(port: port) }
  }

  private struct Malformed: Error, CustomStringConvertible { var description: String }

  /// The protocol's newer name (`foxglove.sdk.v1`, which Foxglove's SDK servers accept alone)
  /// is served too; the older name wins when both are offered.
  func testEitherNameOfTheProtocolIsSelected() {
    XCTAssertEqual(
      FoxgloveConnection.selectSubprotocol(offered: ["foxglove.sdk.v1"]), "foxglove.sdk.v1")
    XCTAssertEqual(
      FoxgloveConnection.selectSubprotocol(offered: ["foxglove.sdk.v1, foxglove.websocket.v1"]),
      "foxglove.websocket.v1")
    XCTAssertEqual(
      FoxgloveConnection.selectSubprotocol(offered: ["chat", "foxglove.websocket.v1"]),
      "foxglove.websocket.v1")
    XCTAssertNil(FoxgloveConnection.selectSubprotocol(offered: ["chat, superchat"]))
    XCTAssertNil(FoxgloveConnection.selectSubprotocol(offered: []))
  }

  /// The source's `finished` event has no time of its own: on `/events` it is stamped with the
  /// latest time the connection saw, so its payload keeps the schema (a number, not null) and
  /// its log time does not jump back to 0.
  func testAnEventWithoutATimeGetsTheLatestTime() async throws {
    let connection = FoxgloveConnection(serverName: "test", sessionID: "1")
    connection.handle(#"{"op":"subscribe","subscriptions":[{"id":5,"channelId":7}]}"#)
    var batch = DashboardBatch()
    batch.append([41.5, 0, 0, -1], to: .accelerometer)
    batch.append(DashboardEvent(time: 41.25, kind: "tap", detail: "left side"))
    connection.offer(batch)
    var last = DashboardBatch()
    last.append(DashboardEvent(time: .nan, kind: "source", detail: "finished"))
    connection.offer(last)
    connection.finish()
    var events: [(UInt64, JSON)] = []
    for await message in connection.messages {
      guard case .binary(let bytes) = message else { continue }
      let (id, time, payload) = try Self.messageData(bytes)
      XCTAssertEqual(id, 5)
      events.append((time, payload))
    }
    XCTAssertEqual(events.map { $0.1["kind"] as? String }, ["tap", "source"])
    XCTAssertEqual(events.last?.0, 41_500_000_000)
    XCTAssertEqual(events.last?.1["timestamp"] as? Double, 41.5)
  }

  /// Subscriptions from a client are checked: ids must be whole numbers in UInt32's range, channels
  /// must exist, an id in use is refused, one per channel is held; each refusal is a status
  /// message.
  func testSubscriptionRequestsAreCheckedAndRefusalsAnswered() async throws {
    let connection = FoxgloveConnection(serverName: "test", sessionID: "1")
    connection.handle(
      #"{"op":"subscribe","subscriptions":[{"id":1,"channelId":1},{"id":1,"channelId":3},"#
        + #"{"id":-1,"channelId":1},{"id":2.5,"channelId":1},{"id":"3","channelId":1},"#
        + #"{"id":4294967296,"channelId":1},{"id":5,"channelId":99},{"id":6,"channelId":3}]}"#)
    XCTAssertEqual(connection.subscriptions, [1: .deviceMotion, 6: .accelerometer])
    connection.handle(#"{"op":"unsubscribe","subscriptionIds":[1, "x", 77]}"#)
    XCTAssertEqual(connection.subscriptions, [6: .accelerometer])
    let many = (100..<200).map { #"{"id":\#($0),"channelId":2}"# }.joined(separator: ",")
    connection.handle(#"{"op":"subscribe","subscriptions":[\#(many)]}"#)
    XCTAssertEqual(connection.subscriptions, [6: .accelerometer, 100: .attitude])
    connection.handle(#"{"op":"getParameters"}"#)
    connection.handle("[1,2]")
    // As deep as the 4 KiB message limit allows: refused, not a stack overflow.
    connection.handle(String(repeating: "[", count: 4096))
    connection.finish()
    var statuses: [Int] = []
    for await message in connection.messages {
      guard case .text(let text) = message, let object = try? Self.object(text),
        object["op"] as? String == "status"
      else { continue }
      statuses.append(object["level"] as? Int ?? -1)
    }
    // 6 refused subscriptions, 99 to a channel already subscribed, an unsupported op; a
    // non-object, a deep nest.
    XCTAssertEqual(statuses.filter { $0 == 1 }.count, 6 + 99 + 1)
    XCTAssertEqual(statuses.filter { $0 == 2 }.count, 2)
  }

  /// One subscription per channel per client: a second one to the same channel (another id) is
  /// refused with a warning and the channel's rows are encoded and sent once. Before, a client
  /// could hold 64 subscriptions to one channel and have each row encoded 64 times on the event
  /// loop. After an unsubscribe the channel can be subscribed to again, under any id.
  func testASecondSubscriptionToAChannelIsRefused() async throws {
    let connection = FoxgloveConnection(serverName: "test", sessionID: "1")
    connection.handle(
      #"{"op":"subscribe","subscriptions":[{"id":1,"channelId":3},{"id":2,"channelId":3}]}"#)
    connection.handle(#"{"op":"subscribe","subscriptions":[{"id":3,"channelId":3}]}"#)
    XCTAssertEqual(connection.subscriptions, [1: .accelerometer])
    var batch = DashboardBatch()
    batch.append([1.5, 0, 0, -1], to: .accelerometer)
    connection.offer(batch)
    connection.handle(#"{"op":"unsubscribe","subscriptionIds":[1]}"#)
    connection.handle(#"{"op":"subscribe","subscriptions":[{"id":2,"channelId":3}]}"#)
    XCTAssertEqual(connection.subscriptions, [2: .accelerometer])
    connection.offer(batch)
    connection.finish()
    var frameIDs: [UInt32] = []
    var warnings: [String] = []
    for await message in connection.messages {
      switch message {
      case .binary(let bytes): frameIDs.append(try Self.messageData(bytes).0)
      case .text(let text):
        let object = try Self.object(text)
        if object["op"] as? String == "status", object["level"] as? Int == 1 {
          warnings.append(object["message"] as? String ?? "")
        }
      }
    }
    XCTAssertEqual(frameIDs, [1, 2], "one frame per row, under the one subscription")
    XCTAssertEqual(warnings.count, 2, "\(warnings)")
    XCTAssertTrue(warnings.allSatisfy { $0.contains("already subscribed to channel 3") })
  }

  /// A frame's parts: (subscription id, timestamp ns, payload JSON).
  private static func messageData(_ bytes: [UInt8]) throws -> (UInt32, UInt64, JSON) {
    guard bytes.count > 13, bytes[0] == 1 else {
      throw Malformed(description: "not a Message Data frame: \(bytes.prefix(13))")
    }
    let id = bytes[1..<5].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    let time = bytes[5..<13].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let payload = try JSONSerialization.jsonObject(with: Data(bytes[13...])) as? JSON ?? [:]
    return (id, time, payload)
  }

  private static func object(_ text: String) throws -> JSON {
    try JSONSerialization.jsonObject(with: Data(text.utf8)) as? JSON ?? [:]
  }

  private static func exercise(port: Int) throws {
    let endpoint = URL(string: "ws://127.0.0.1:\(port)/ws")!
    let client = try WebSocketTestClient(
      url: endpoint, subprotocols: ["foxglove.websocket.v1"], origin: "https://app.foxglove.dev")
    XCTAssertEqual(client.selectedSubprotocol, "foxglove.websocket.v1")

    // Server info, then one advertisement of every channel, each with a JSON Schema.
    guard case .text(let infoText) = try client.readMessage(),
      case .text(let advertiseText) = try client.readMessage()
    else { return XCTFail("the first two messages must be JSON text") }
    XCTAssertEqual(try object(infoText)["op"] as? String, "serverInfo")
    let advertise = try object(advertiseText)
    XCTAssertEqual(advertise["op"] as? String, "advertise")
    let channels = try XCTUnwrap(advertise["channels"] as? [JSON])
    var channelIDs: [String: Int] = [:]
    for channel in channels {
      let topic = try XCTUnwrap(channel["topic"] as? String)
      channelIDs[topic] = channel["id"] as? Int
      XCTAssertEqual(channel["encoding"] as? String, "json")
      XCTAssertEqual(channel["schemaEncoding"] as? String, "jsonschema")
      let schema = try XCTUnwrap(channel["schema"] as? String)
      XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(schema.utf8)), topic)
    }
    XCTAssertEqual(
      Set(channelIDs.keys),
      [
        "/device_motion", "/tf", "/accelerometer", "/gyroscope", "/magnetometer", "/pressure",
        "/events",
      ])
    let motionChannel = try XCTUnwrap(channelIDs["/device_motion"])
    let transformChannel = try XCTUnwrap(channelIDs["/tf"])
    let accelerometerChannel = try XCTUnwrap(channelIDs["/accelerometer"])
    try client.sendText(
      #"{"op":"subscribe","subscriptions":[{"id":10,"channelId":\#(motionChannel)},"#
        + #"{"id":11,"channelId":\#(transformChannel)},{"id":12,"channelId":\#(accelerometerChannel)}]}"#
    )

    // Rows of the three channels, in time order per subscription; the transform is the device
    // motion's attitude at the same instant.
    var attitudes: [UInt64: [Double]] = [:]
    var transforms: [(UInt64, [Double])] = []
    var lastTime: [UInt32: UInt64] = [:]
    var counts: [UInt32: Int] = [:]
    let deadline = Date(timeIntervalSinceNow: 30)
    while counts.values.min() ?? 0 < 60 || counts.count < 3 {
      guard Date() < deadline else { return XCTFail("too few messages: \(counts)") }
      guard case .binary(let bytes) = try client.readMessage() else { continue }
      let (id, time, payload) = try messageData(bytes)
      XCTAssertTrue([10, 11, 12].contains(id), "subscription \(id)")
      if let last = lastTime[id] { XCTAssertGreaterThan(time, last, "subscription \(id) in order") }
      lastTime[id] = time
      counts[id, default: 0] += 1
      switch id {
      case 10:
        let q = try XCTUnwrap(payload["attitude"] as? [String: Double])
        let quaternion = [q["w"]!, q["x"]!, q["y"]!, q["z"]!]
        // Six decimals on the wire: a unit quaternion to within 1e-5.
        XCTAssertEqual(quaternion.map { $0 * $0 }.reduce(0, +), 1, accuracy: 1e-5)
        let gravity = try XCTUnwrap(payload["gravity"] as? [String: Double])
        XCTAssertEqual(
          (gravity["x"]! * gravity["x"]! + gravity["y"]! * gravity["y"]! + gravity["z"]!
            * gravity["z"]!).squareRoot(), 1, accuracy: 1e-5)
        let timestamp = try XCTUnwrap(payload["timestamp"] as? Double)
        XCTAssertEqual(Double(time) * 1e-9, timestamp, accuracy: 1e-6)
        attitudes[time] = quaternion
      case 11:
        XCTAssertEqual(payload["parent_frame_id"] as? String, "reference")
        XCTAssertEqual(payload["child_frame_id"] as? String, "device")
        let stamp = try XCTUnwrap(payload["timestamp"] as? [String: Int])
        XCTAssertEqual(UInt64(stamp["sec"]!) * 1_000_000_000 + UInt64(stamp["nsec"]!), time)
        let r = try XCTUnwrap(payload["rotation"] as? [String: Double])
        transforms.append((time, [r["w"]!, r["x"]!, r["y"]!, r["z"]!]))
      default:
        for axis in ["x", "y", "z"] { XCTAssertNotNil(payload[axis] as? Double, axis) }
      }
    }
    for (time, rotation) in transforms {
      XCTAssertEqual(attitudes[time], rotation, "the transform at \(time) ns is the attitude")
    }

    // After unsubscribing, no accelerometer rows from later than what was already queued
    // (the queue holds about 0.4 s of these three channels).
    try client.sendText(#"{"op":"unsubscribe","subscriptionIds":[12]}"#)
    let unsubscribedAt = lastTime.values.max() ?? 0
    var late = 0
    var motionAfter = 0
    let end = Date(timeIntervalSinceNow: 2)
    while Date() < end {
      guard case .binary(let bytes) = try client.readMessage() else { continue }
      let (id, time, _) = try messageData(bytes)
      if id == 12, time > unsubscribedAt + 600_000_000 { late += 1 }
      if id == 10 { motionAfter += 1 }
    }
    XCTAssertEqual(late, 0, "accelerometer rows after the unsubscription took effect")
    XCTAssertGreaterThan(motionAfter, 50, "the other subscriptions go on")

    // A malformed message is answered with an error status; the connection stays up.
    try client.sendText("{")
    var status: JSON?
    let statusDeadline = Date(timeIntervalSinceNow: 10)
    while status == nil, Date() < statusDeadline {
      if case .text(let text) = try client.readMessage() { status = try object(text) }
    }
    XCTAssertEqual(status?["op"] as? String, "status")
    XCTAssertEqual(status?["level"] as? Int, 2)

    // Another site's page may not use either protocol; Foxglove's app origin only Foxglove's.
    XCTAssertThrowsError(
      try WebSocketTestClient(
        url: endpoint, subprotocols: ["foxglove.websocket.v1"], origin: "https://evil.example"))
    XCTAssertThrowsError(try WebSocketTestClient(url: endpoint, origin: "https://app.foxglove.dev"))
    // A page's connection (no subprotocol) still gets the page's frames.
    let page = try WebSocketTestClient(url: endpoint)
    XCTAssertNil(page.selectedSubprotocol)
    XCTAssertEqual(try object(try page.readText())["type"] as? String, "hello")
  }
}
