// SPDX-License-Identifier: Apache-2.0

import Foundation
import NIOCore
import XCTest
import _MotionTestSupport

@testable import MotionDashboard

/// Binary data frames (docs/Dashboard.md, "Binary data frames"): the layout a reader decodes, the
/// same content as the JSON form, and the server answering `/ws?format=binary` with them.
final class DashboardBinaryFrameTests: XCTestCase {
  private typealias JSON = [String: Any]

  /// What a reader of the documented layout gets: the header object and each block's rows.
  private struct Decoded {
    var header: JSON
    var rows: [String: [[Double]]]
  }

  private struct Malformed: Error, CustomStringConvertible { var description: String }

  /// Decodes a frame by the documentation alone (not with the encoder's helpers).
  private static func decode(_ bytes: [UInt8]) throws -> Decoded {
    guard bytes.count >= 8, Array(bytes[0..<4]) == Array("OCMD".utf8) else {
      throw Malformed(description: "no OCMD magic: \(bytes.prefix(8))")
    }
    let headerLength = Int(bytes[4..<8].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    guard 8 + headerLength <= bytes.count else {
      throw Malformed(description: "header of \(headerLength) bytes in a frame of \(bytes.count)")
    }
    let header = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(bytes[8..<(8 + headerLength)])) as? JSON)
    // Padding: zeros up to the next multiple of 8.
    var offset = 8 + headerLength
    while offset % 8 != 0 {
      guard bytes[offset] == 0 else { throw Malformed(description: "non-zero padding") }
      offset += 1
    }
    var rows: [String: [[Double]]] = [:]
    for case let block as [Any] in try XCTUnwrap(header["blocks"] as? [Any]) {
      let name = try XCTUnwrap(block[0] as? String)
      let count = try XCTUnwrap(block[1] as? Int)
      let columns = try XCTUnwrap(block[2] as? Int)
      var list: [[Double]] = []
      for _ in 0..<count {
        var row: [Double] = []
        for _ in 0..<columns {
          guard offset + 8 <= bytes.count else { throw Malformed(description: "rows cut short") }
          let bits = bytes[offset..<(offset + 8)].reversed().reduce(UInt64(0)) {
            $0 << 8 | UInt64($1)
          }
          row.append(Double(bitPattern: bits))
          offset += 8
        }
        list.append(row)
      }
      rows[name] = list
    }
    guard offset == bytes.count else {
      throw Malformed(description: "\(bytes.count - offset) bytes after the last block")
    }
    return Decoded(header: header, rows: rows)
  }

  private static func bytes(_ buffer: ByteBuffer) -> [UInt8] {
    buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? []
  }

  /// Seeded rows of every stream, including values the JSON form rounds (times to 1 µs) or
  /// writes as null: the binary form carries each bit for bit, and the rest of the frame is the
  /// JSON form's.
  func testRowsArriveBitForBitAndTheHeaderMatchesTheJSONForm() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SplitMix64(seed: seed)
    var batch = DashboardBatch()
    let widths: [(DashboardBatch.Stream, Int)] = [
      (.motion, DashboardFrameEncoder.motionFields.count), (.accelerometer, 4),
      (.gyroscope, 4), (.magnetometer, 4), (.pressure, 3),
    ]
    for (stream, width) in widths {
      for _ in 0..<Int.random(in: 0...5, using: &generator) {
        var row = (0..<width).map { _ in Double.random(in: -1e3...1e3, using: &generator) }
        row[0] = 12_345.678_901_234_5 + Double.random(in: 0...1, using: &generator)
        if Bool.random(using: &generator) { row[width - 1] = .nan }
        batch.append(row, to: stream)
      }
    }
    batch.append(DashboardEvent(time: 1, kind: "tap", detail: "left side"))
    var state = DashboardFeedState()
    state.orientation = "faceUp"
    state.health.note(.gyroscope, time: 0)
    let recording = DashboardRecorder.Status(
      isRecording: false, file: nil, samples: 0, message: nil)

    let textBody = DashboardFrameEncoder.dataFrameBody(
      sequence: 3, batch: batch, state: state, recording: recording, serverTime: 5, rows: .json)
    let binaryBody = DashboardFrameEncoder.dataFrameBody(
      sequence: 3, batch: batch, state: state, recording: recording, serverTime: 5, rows: .binary)
    let header = DashboardFrameEncoder.finish(binaryBody, droppedFrames: 1, sentFrames: 2)
    let frame = DashboardBinaryFrame.frame(
      header: header, rows: DashboardBinaryFrame.rowSection(of: batch))
    let decoded = try Self.decode(Self.bytes(frame))

    let expected: [String: [[Double]]] = [
      "motion": batch.motion, "accelerometer": batch.accelerometer, "gyroscope": batch.gyroscope,
      "magnetometer": batch.magnetometer, "pressure": batch.pressure,
    ]
    XCTAssertEqual(Set(decoded.rows.keys), Set(expected.keys), "seed \(seed)")
    for (name, rows) in expected {
      let got = try XCTUnwrap(decoded.rows[name], "seed \(seed)")
      XCTAssertEqual(got.count, rows.count, "\(name), seed \(seed)")
      for (gotRow, row) in zip(got, rows) {
        XCTAssertEqual(gotRow.map(\.bitPattern), row.map(\.bitPattern), "\(name), seed \(seed)")
      }
    }
    // Everything else is the JSON form's, field for field.
    var json = try XCTUnwrap(
      try JSONSerialization.jsonObject(
        with: Data(DashboardFrameEncoder.finish(textBody, droppedFrames: 1, sentFrames: 2).utf8))
        as? JSON)
    for name in expected.keys { json.removeValue(forKey: name) }
    var header2 = decoded.header
    header2.removeValue(forKey: "blocks")
    XCTAssertEqual(
      NSDictionary(dictionary: header2), NSDictionary(dictionary: json), "seed \(seed)")
  }

  /// An empty batch still makes a well-formed frame (blocks of zero rows); the numbers start at
  /// a multiple of 8 whatever the header's length.
  func testNumbersStartAlignedForEveryHeaderLength() throws {
    var batch = DashboardBatch()
    batch.append([1, 2, 3, 4], to: .accelerometer)
    for extra in 0..<16 {
      let header =
        #"{"type":"data","pad":""# + String(repeating: "x", count: extra)
        + #"","blocks":[["accelerometer",1,4]]}"#
      let bytes = Self.bytes(
        DashboardBinaryFrame.frame(header: header, rows: DashboardBinaryFrame.rowSection(of: batch))
      )
      XCTAssertEqual(bytes.count % 8, 0, "header of \(header.utf8.count) bytes")
      XCTAssertEqual(try Self.decode(bytes).rows["accelerometer"], [[1, 2, 3, 4]])
    }
    let empty = DashboardBinaryFrame.frame(
      header: #"{"blocks":[]}"#, rows: DashboardBinaryFrame.rowSection(of: DashboardBatch()))
    XCTAssertEqual(try Self.decode(Self.bytes(empty)).rows.count, 0)
  }

  func testFormatComesFromTheQueryAndUnknownFormatsAreRefused() {
    XCTAssertEqual(DashboardFrameFormat(query: []), .json)
    XCTAssertEqual(DashboardFrameFormat(query: [("token", "x")]), .json)
    XCTAssertEqual(DashboardFrameFormat(query: [("format", "binary")]), .binary)
    XCTAssertEqual(DashboardFrameFormat(query: [("format", "json")]), .json)
    XCTAssertNil(DashboardFrameFormat(query: [("format", "xml")]))
  }

  /// The server: `?format=binary` gets the `hello` as text, then binary data frames whose motion
  /// rows are unit quaternions from the simulator; a JSON client beside it still gets text; an
  /// unknown format is not upgraded.
  func testServerSendsBinaryFramesToClientsThatAskForThem() async throws {
    let configuration = DashboardConfiguration(port: 0, source: .simulator(scenario: "tour"))
    let (url, task) = try await DashboardServerTests.start(configuration)
    defer { task.cancel() }
    let port = try XCTUnwrap(url.port)
    try await onThread {
      let binary = try WebSocketTestClient(
        url: URL(string: "ws://127.0.0.1:\(port)/ws?format=binary")!)
      let json = try WebSocketTestClient(url: URL(string: "ws://127.0.0.1:\(port)/ws")!)
      guard case .text(let hello) = try binary.readMessage() else {
        return XCTFail("the hello must be text")
      }
      XCTAssertTrue(hello.contains(#""type":"hello""#))
      var motionRows = 0
      var binaryFrames = 0
      let deadline = Date().addingTimeInterval(10)
      while motionRows < 10, Date() < deadline {
        switch try binary.readMessage() {
        case .text(let text):
          XCTAssertFalse(
            text.contains(#""type":"data""#), "a data frame as text: \(text.prefix(80))")
        case .binary(let bytes):
          binaryFrames += 1
          let frame = try Self.decode(bytes)
          XCTAssertEqual(frame.header["type"] as? String, "data")
          XCTAssertNotNil(frame.header["client"] as? JSON)
          for row in frame.rows["motion"] ?? [] {
            XCTAssertEqual(row.count, DashboardFrameEncoder.motionFields.count)
            let norm = (row[1] * row[1] + row[2] * row[2] + row[3] * row[3] + row[4] * row[4])
              .squareRoot()
            XCTAssertEqual(norm, 1, accuracy: 1e-9)
            motionRows += 1
          }
        }
      }
      XCTAssertGreaterThanOrEqual(motionRows, 10, "in \(binaryFrames) binary frames")
      var jsonData = 0
      while jsonData < 2, Date() < deadline {
        if case .text(let text) = try json.readMessage(), text.contains(#""type":"data""#) {
          XCTAssertTrue(text.contains(#""motion":["#))
          jsonData += 1
        }
      }
      XCTAssertEqual(jsonData, 2, "the JSON client beside it gets JSON text")
      XCTAssertThrowsError(
        try WebSocketTestClient(url: URL(string: "ws://127.0.0.1:\(port)/ws?format=xml")!))
    }
  }
}
