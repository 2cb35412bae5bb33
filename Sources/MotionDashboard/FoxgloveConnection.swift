// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors

/// One Foxglove client (Foxglove's WebSocket protocol, subprotocol `foxglove.websocket.v1`, on the
/// dashboard's `/ws`): its subscriptions and its bounded queue of outgoing messages.
///
/// The hub offers each batch it broadcasts; the connection turns the rows of the channels this
/// client subscribed to into binary Message Data frames (opcode 1, subscription id, timestamp in
/// ns, JSON payload). Like a page's queue, the queue keeps the newest messages and counts the ones
/// it drops, so a slow client never grows the server's memory.
package final class FoxgloveConnection: Sendable {
  package static let subprotocol = "foxglove.websocket.v1"
  /// The same protocol's newer name, used by Foxglove's SDK (whose servers accept only this
  /// name) and by clients written for them, which may offer only this name.
  package static let sdkSubprotocol = "foxglove.sdk.v1"

  /// Which name of the protocol to select from the `Sec-WebSocket-Protocol` values of an upgrade
  /// request (each a comma-separated list): ``subprotocol`` when offered, as before, else
  /// ``sdkSubprotocol``; `nil` when the request offers neither (a page).
  package static func selectSubprotocol(offered values: [String]) -> String? {
    let offered = Set(
      values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) })
    if offered.contains(subprotocol) { return subprotocol }
    if offered.contains(sdkSubprotocol) { return sdkSubprotocol }
    return nil
  }
  /// Messages held before the oldest is dropped (about 0.25 s of every channel at 100 Hz).
  package static let capacity = 256
  /// Subscriptions one client may hold: one per channel (ids are the client's). A second
  /// subscription to a channel is refused with a warning status, as Foxglove's reference server
  /// does: each subscription is encoded on its own, so 64 of them to one channel made one client
  /// cost 64 times the JSON encoding of that channel on the event loop.
  package static let maximumSubscriptions = FoxgloveChannel.allCases.count

  /// A message to write: JSON text (server info, advertisement, status) or a binary frame.
  package enum Outgoing: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
  }

  package let messages: AsyncStream<Outgoing>
  private let continuation: AsyncStream<Outgoing>.Continuation
  private let state = Locked(State())

  private struct State {
    /// Subscription id (the client's) → channel.
    var subscriptions: [UInt32: FoxgloveChannel] = [:]
    var dropped = 0
    /// The latest source time (s) of any row offered to this connection, for events that have
    /// no time of their own.
    var latestTime: Double?
  }

  /// A connection that first receives the server info and the advertisement of every channel.
  package init(serverName: String, sessionID: String, capacity: Int = FoxgloveConnection.capacity) {
    (messages, continuation) = AsyncStream.makeStream(
      of: Outgoing.self, bufferingPolicy: .bufferingNewest(max(1, capacity)))
    var info = JSONWriter()
    info.beginObject()
    info.field("op", "serverInfo")
    info.field("name", serverName)
    info.key("capabilities")
    info.beginArray()
    info.endArray()
    info.key("metadata")
    info.beginObject()
    info.endObject()
    info.field("sessionId", sessionID)
    info.endObject()
    offer(.text(info.text))
    var advertise = JSONWriter(capacity: 4096)
    advertise.beginObject()
    advertise.field("op", "advertise")
    advertise.key("channels")
    advertise.beginArray()
    for channel in FoxgloveChannel.allCases {
      advertise.beginObject()
      advertise.field("id", Int(channel.rawValue))
      advertise.field("topic", channel.topic)
      advertise.field("encoding", "json")
      advertise.field("schemaName", channel.schemaName)
      advertise.field("schema", channel.schema)
      advertise.field("schemaEncoding", "jsonschema")
      advertise.endObject()
    }
    advertise.endArray()
    advertise.endObject()
    offer(.text(advertise.text))
  }

  /// Messages dropped because the client did not keep up.
  package var droppedMessages: Int { state.withLock { $0.dropped } }

  /// The channels subscribed to now, by subscription id.
  package var subscriptions: [UInt32: FoxgloveChannel] { state.withLock { $0.subscriptions } }

  /// Whether some subscription of this client is to `channel`.
  package func isSubscribed(to channel: FoxgloveChannel) -> Bool {
    state.withLock { $0.subscriptions.values.contains(channel) }
  }

  /// Ends ``messages`` (the connection closed).
  package func finish() { continuation.finish() }

  private func offer(_ message: Outgoing) {
    if case .dropped = continuation.yield(message) { state.withLock { $0.dropped += 1 } }
  }

  // MARK: Client messages

  /// Carries out a `subscribe` or `unsubscribe`; anything else is answered with a status message
  /// (and changes nothing).
  package func handle(_ text: String) {
    guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
      let op = object["op"] as? String
    else { return status(2, "not a JSON object with an op") }
    switch op {
    case "subscribe":
      guard let items = object["subscriptions"] as? [[String: Any]] else {
        return status(2, "subscribe needs a subscriptions array")
      }
      for item in items {
        guard let id = Self.identifier(item["id"]),
          let channelID = Self.identifier(item["channelId"]),
          let channel = FoxgloveChannel(rawValue: channelID)
        else {
          status(1, "ignored a subscription without a valid id and channelId")
          continue
        }
        let problem = state.withLock { s -> String? in
          guard s.subscriptions[id] == nil else { return "subscription id \(id) is in use" }
          guard !s.subscriptions.values.contains(channel) else {
            return "already subscribed to channel \(channelID); ignoring subscription"
          }
          guard s.subscriptions.count < Self.maximumSubscriptions else {
            return "at most \(Self.maximumSubscriptions) subscriptions"
          }
          s.subscriptions[id] = channel
          return nil
        }
        if let problem { status(1, problem) }
      }
    case "unsubscribe":
      guard let ids = object["subscriptionIds"] as? [Any] else {
        return status(2, "unsubscribe needs a subscriptionIds array")
      }
      let parsed = ids.compactMap(Self.identifier)
      state.withLock { s in for id in parsed { s.subscriptions.removeValue(forKey: id) } }
    default:
      status(1, "unsupported op \(String(String.UnicodeScalarView(op.unicodeScalars.prefix(40))))")
    }
  }

  /// A whole number in 0...UInt32.max, or `nil` (JSON numbers arrive as NSNumber; a fraction, a
  /// negative number or a string is not an id).
  private static func identifier(_ value: Any?) -> UInt32? {
    guard let number = value as? NSNumber else { return nil }
    let double = number.doubleValue
    guard double.isFinite, double >= 0, double <= Double(UInt32.max), double.rounded() == double
    else { return nil }
    return UInt32(double)
  }

  private func status(_ level: Int, _ message: String) {
    var json = JSONWriter()
    json.beginObject()
    json.field("op", "status")
    json.field("level", level)
    json.field("message", message)
    json.endObject()
    offer(.text(json.text))
  }

  // MARK: Data

  /// Queues one Message Data frame per row of every subscribed channel in `batch`.
  package func offer(_ batch: DashboardBatch) {
    // An event without a time (the source finished) is stamped with the latest time seen, so
    // that it keeps its channel's schema (a number) and its place in the log's order.
    let rowTimes = batch.namedRows.compactMap { $0.rows.last?.first }.filter(\.isFinite)
    let eventTimes = batch.events.map(\.time).filter(\.isFinite)
    let (subscriptions, latestTime) = state.withLock { state in
      if let latest = (rowTimes + eventTimes).max() {
        state.latestTime = max(state.latestTime ?? latest, latest)
      }
      return (state.subscriptions, state.latestTime ?? 0)
    }
    guard !subscriptions.isEmpty else { return }
    for (id, channel) in subscriptions.sorted(by: { $0.key < $1.key }) {
      switch channel {
      case .deviceMotion:
        for row in batch.motion where row.count == 19 { send(id, row[0], Self.deviceMotion(row)) }
      case .attitude:
        for row in batch.motion where row.count == 19 { send(id, row[0], Self.transform(row)) }
      case .accelerometer:
        for row in batch.accelerometer where row.count == 4 { send(id, row[0], Self.vector(row)) }
      case .gyroscope:
        for row in batch.gyroscope where row.count == 4 { send(id, row[0], Self.vector(row)) }
      case .magnetometer:
        for row in batch.magnetometer where row.count == 4 { send(id, row[0], Self.vector(row)) }
      case .pressure:
        for row in batch.pressure where row.count == 3 {
          var json = JSONWriter(capacity: 96)
          json.beginObject()
          json.field("timestamp", row[0])
          json.field("pressure", row[1])
          json.field("relativeAltitude", row[2])
          json.endObject()
          send(id, row[0], json)
        }
      case .events:
        for event in batch.events {
          let time = event.time.isFinite ? event.time : latestTime
          var json = JSONWriter(capacity: 96)
          json.beginObject()
          json.field("timestamp", time)
          json.field("kind", event.kind)
          json.field("detail", event.detail)
          json.endObject()
          send(id, time, json)
        }
      }
    }
  }

  /// A Message Data frame: opcode 1, the subscription id and the timestamp (ns) little-endian,
  /// then the payload.
  private func send(_ subscription: UInt32, _ time: Double, _ json: JSONWriter) {
    let payload = json.utf8
    var frame: [UInt8] = []
    frame.reserveCapacity(13 + payload.count)
    frame.append(1)
    withUnsafeBytes(of: subscription.littleEndian) { frame.append(contentsOf: $0) }
    withUnsafeBytes(of: Self.nanoseconds(time).littleEndian) { frame.append(contentsOf: $0) }
    frame.append(contentsOf: payload)
    offer(.binary(frame))
  }

  /// Seconds on the source's clock as whole nanoseconds (0 for times before 0 or beyond 500
  /// years, which no source gives).
  static func nanoseconds(_ seconds: Double) -> UInt64 {
    guard seconds.isFinite, seconds >= 0, seconds < 1.6e10 else { return 0 }
    return UInt64((seconds * 1e9).rounded())
  }

  private static func vector(_ row: [Double]) -> JSONWriter {
    var json = JSONWriter(capacity: 96)
    json.beginObject()
    json.field("timestamp", row[0])
    json.field("x", row[1])
    json.field("y", row[2])
    json.field("z", row[3])
    json.endObject()
    return json
  }

  private static func xyz(
    _ name: String, _ row: [Double], _ start: Int, into json: inout JSONWriter
  ) {
    json.key(name)
    json.beginObject()
    json.field("x", row[start])
    json.field("y", row[start + 1])
    json.field("z", row[start + 2])
    json.endObject()
  }

  /// A device-motion row (docs/Dashboard.md: t, quaternion w x y z, gravity, user acceleration,
  /// rotation rate, field, accuracy, heading) as an `opencoremotion.DeviceMotion` message.
  private static func deviceMotion(_ row: [Double]) -> JSONWriter {
    var json = JSONWriter(capacity: 512)
    json.beginObject()
    json.field("timestamp", row[0])
    json.key("attitude")
    json.beginObject()
    json.field("w", row[1])
    json.field("x", row[2])
    json.field("y", row[3])
    json.field("z", row[4])
    json.endObject()
    xyz("gravity", row, 5, into: &json)
    xyz("userAcceleration", row, 8, into: &json)
    xyz("rotationRate", row, 11, into: &json)
    xyz("magneticField", row, 14, into: &json)
    json.field("magneticFieldAccuracy", Int(exactly: row[17]) ?? -1)
    json.field("heading", row[18])
    json.endObject()
    return json
  }

  /// The attitude as a `foxglove.FrameTransform` from the reference frame to the device.
  private static func transform(_ row: [Double]) -> JSONWriter {
    let nanoseconds = Self.nanoseconds(row[0])
    var json = JSONWriter(capacity: 256)
    json.beginObject()
    json.key("timestamp")
    json.beginObject()
    json.field("sec", Int(nanoseconds / 1_000_000_000))
    json.field("nsec", Int(nanoseconds % 1_000_000_000))
    json.endObject()
    json.field("parent_frame_id", "reference")
    json.field("child_frame_id", "device")
    json.key("translation")
    json.beginObject()
    json.field("x", 0.0)
    json.field("y", 0.0)
    json.field("z", 0.0)
    json.endObject()
    json.key("rotation")
    json.beginObject()
    json.field("x", row[2])
    json.field("y", row[3])
    json.field("z", row[4])
    json.field("w", row[1])
    json.endObject()
    json.endObject()
    return json
  }
}
