// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Writes the WebSocket frames described in docs/Dashboard.md.
package enum DashboardFrameEncoder {
  /// The version of the frame format; bumped when a field changes meaning.
  package static let formatVersion = 1

  /// The names of a device-motion row's columns, in order (sent in the `hello` message too).
  package static let motionFields = [
    "t", "qw", "qx", "qy", "qz", "gravityX", "gravityY", "gravityZ", "userX", "userY", "userZ",
    "rotationX", "rotationY", "rotationZ", "fieldX", "fieldY", "fieldZ", "fieldAccuracy", "heading",
  ]

  /// The start of a `data` frame, shared by every client: everything but the per-client counters
  /// and the closing brace (``finish(_:droppedFrames:sentFrames:)`` adds them).
  ///
  /// With `rows` `.json` the rows are JSON arrays in the text; with `.binary` the text only
  /// describes them (`"blocks"`) and ``DashboardBinaryFrame`` carries them as numbers.
  package static func dataFrameBody(
    sequence: Int, batch: DashboardBatch, state: DashboardFeedState,
    recording: DashboardRecorder.Status,
    serverTime: Double = Date().timeIntervalSince1970,
    rows rowFormat: DashboardFrameFormat = .json
  ) -> String {
    let rowCharacters =
      rowFormat == .json ? 160 * batch.motion.count + 64 * batch.accelerometer.count : 0
    var json = JSONWriter(capacity: 512 + rowCharacters)
    json.beginObject()
    json.field("type", "data")
    json.field("seq", sequence)
    json.field("serverTime", serverTime * 1000)
    json.field("orientation", state.orientation)
    switch rowFormat {
    case .json:
      for block in DashboardBinaryFrame.blocks(of: batch) {
        rows(block.name, block.rows, into: &json)
      }
    case .binary:
      // [name, rows, columns] per block, in the order the numbers follow the text.
      json.key("blocks")
      json.beginArray()
      for block in DashboardBinaryFrame.blocks(of: batch) {
        json.beginArray()
        json.string(block.name)
        json.integer(block.rows.count)
        json.integer(block.columns)
        json.endArray()
      }
      json.endArray()
    }
    json.key("events")
    json.beginArray()
    for event in batch.events {
      json.beginObject()
      json.field("t", event.time)
      json.field("kind", event.kind)
      json.field("detail", event.detail)
      json.endObject()
    }
    json.endArray()
    pedometer(state.pedometer.snapshot, into: &json)
    json.key("health")
    json.beginObject()
    json.key("sensors")
    json.beginObject()
    for (name, meter) in state.health.meters {
      json.key(name)
      json.beginObject()
      json.key("rate")
      if let rate = meter.rate { json.number(rate) } else { json.null() }
      json.field("missed", meter.missed)
      json.field("total", meter.total)
      json.endObject()
    }
    json.endObject()
    json.field("latency", state.lastBatchLatency)
    json.field("droppedRows", batch.droppedRows)
    json.field("finished", state.finished)
    json.key("problem")
    if let problem = state.problem { json.string(problem) } else { json.null() }
    json.endObject()
    recordingStatus(recording, into: &json)
    return json.text
  }

  /// Completes a data frame for one client with its own counters and the server's totals
  /// (connections open, frames dropped for all of them since start), so any page or tool can see
  /// that a stalled connection is being held to its bound.
  package static func finish(
    _ body: String, droppedFrames: Int, sentFrames: Int, serverClients: Int = 1,
    serverDroppedFrames: Int? = nil
  ) -> String {
    body + ",\"client\":{\"droppedFrames\":\(droppedFrames),\"sentFrames\":\(sentFrames)}"
      + ",\"server\":{\"clients\":\(serverClients),\"droppedFrames\":\(serverDroppedFrames ?? droppedFrames)}}"
  }

  /// The `hello` message: what the source offers and the current settings.
  package static func hello(
    source: String, sensors: [String], frames: [String], frame: String, rate: Double,
    rates: [Double],
    scenarios: [String], scenario: String?, hasHistory: Bool, recording: DashboardRecorder.Status
  ) -> String {
    var json = JSONWriter()
    json.beginObject()
    json.field("type", "hello")
    json.field("version", formatVersion)
    json.field("source", source)
    json.key("sensors")
    json.beginArray()
    for sensor in sensors { json.string(sensor) }
    json.endArray()
    json.key("frames")
    json.beginArray()
    for name in frames { json.string(name) }
    json.endArray()
    json.field("frame", frame)
    json.field("rate", rate)
    json.key("rates")
    json.numbers(rates)
    json.key("scenarios")
    json.beginArray()
    for name in scenarios { json.string(name) }
    json.endArray()
    json.key("scenario")
    if let scenario { json.string(scenario) } else { json.null() }
    json.field("history", hasHistory)
    json.key("motionFields")
    json.beginArray()
    for name in motionFields { json.string(name) }
    json.endArray()
    recordingStatus(recording, into: &json)
    json.endObject()
    return json.text
  }

  /// A `notice` message: the answer to a control message that could not be carried out.
  package static func notice(_ message: String) -> String {
    var json = JSONWriter()
    json.beginObject()
    json.field("type", "notice")
    json.field("message", message)
    json.endObject()
    return json.text
  }

  private static func rows(_ name: String, _ rows: [[Double]], into json: inout JSONWriter) {
    json.key(name)
    json.beginArray()
    for row in rows { json.numbers(row) }
    json.endArray()
  }

  private static func optional(_ name: String, _ value: Double?, into json: inout JSONWriter) {
    json.key(name)
    if let value { json.number(value) } else { json.null() }
  }

  private static func pedometer(_ snapshot: PedometerSnapshot, into json: inout JSONWriter) {
    json.key("pedometer")
    json.beginObject()
    json.field("steps", snapshot.steps)
    json.field("distance", snapshot.distance)
    optional("cadence", snapshot.cadence, into: &json)
    optional("pace", snapshot.pace, into: &json)
    json.field("floorsAscended", snapshot.floorsAscended)
    json.field("floorsDescended", snapshot.floorsDescended)
    json.field("activity", snapshot.activity)
    json.field("confidence", snapshot.confidence)
    optional("relativeAltitude", snapshot.relativeAltitude, into: &json)
    optional("pressure", snapshot.pressure, into: &json)
    json.endObject()
  }

  private static func recordingStatus(
    _ status: DashboardRecorder.Status, into json: inout JSONWriter
  ) {
    json.key("recording")
    json.beginObject()
    json.field("active", status.isRecording)
    json.key("file")
    if let file = status.file { json.string(file) } else { json.null() }
    json.field("samples", status.samples)
    json.key("message")
    if let message = status.message { json.string(message) } else { json.null() }
    json.endObject()
  }
}
