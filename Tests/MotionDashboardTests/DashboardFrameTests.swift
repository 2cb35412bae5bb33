// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest
import _MotionTestSupport

@testable import MotionDashboard

/// The frame format of docs/Dashboard.md: valid JSON with the documented fields.
final class DashboardFrameTests: XCTestCase {
  private func parse(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try XCTUnwrap(object as? [String: Any], "not a JSON object: \(text)")
  }

  func testJSONWriterEscapesAndWritesNonFiniteAsNull() throws {
    var json = JSONWriter()
    json.beginObject()
    json.field("text", "quote \" backslash \\ newline \n control \u{01}")
    json.field("nan", Double.nan)
    json.field("whole", 3.0)
    json.field("small", 1e-5)
    json.field("bootTime", 123_456.789_012)
    json.key("row")
    json.numbers([1.5, -.infinity, 2])
    json.endObject()
    let object = try parse(json.text)
    XCTAssertEqual(object["text"] as? String, "quote \" backslash \\ newline \n control \u{01}")
    XCTAssertTrue(object["nan"] is NSNull)
    XCTAssertEqual(object["whole"] as? Int, 3)
    // Below 0.001, seven significant digits (through Float).
    XCTAssertEqual(try XCTUnwrap(object["small"] as? Double), 1e-5, accuracy: 1e-11)
    XCTAssertEqual((object["row"] as? [Any])?.count, 3)
    // Large numbers (times since boot) keep Double precision: 1 µs is still resolved.
    XCTAssertEqual(try XCTUnwrap(object["bootTime"] as? Double), 123_456.789_012, accuracy: 1e-6)
  }

  func testJSONWriterNumbersAreFixedPointWithSixDecimals() throws {
    let cases: [(Double, String)] = [
      (0, "0"), (-0.0, "0"), (3, "3"), (-42, "-42"), (0.5, "0.5"), (-1.25, "-1.25"),
      (0.001, "0.001"), (0.9999996, "1"), (123_456.789_012, "123456.789012"),
      (1_764_000_000_123.5, "1764000000123.5"), (1e-5, "1e-05"), (-2.5e-4, "-0.00025"),
      (1e13, "10000000000000.0"), (.nan, "null"), (-.infinity, "null"),
    ]
    for (value, expected) in cases {
      var json = JSONWriter()
      json.number(value)
      XCTAssertEqual(json.text, expected, "\(value)")
    }
    var integers = JSONWriter()
    integers.numbers([])
    integers.integer(Int.min)
    XCTAssertEqual(integers.text, "[],\(Int.min)")
  }

  /// Seeded: every finite number reads back within half a millionth (or Float precision below
  /// 0.001), give or take its own last bit.
  func testJSONWriterNumbersReadBackWithinTheirPrecision() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SplitMix64(seed: seed)
    var values: [Double] = []
    for _ in 0..<2000 {
      let exponent = Double.random(in: -8...12, using: &generator)
      let sign: Double = Bool.random(using: &generator) ? -1 : 1
      values.append(sign * pow(10, exponent))
    }
    var json = JSONWriter()
    json.numbers(values)
    // Valid JSON; the numbers themselves read with `Double(_:)`, which rounds correctly
    // (Foundation's JSON parser on Linux can be a few units in the last place off).
    let array = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [Any], "seed \(seed)")
    XCTAssertEqual(array.count, values.count, "seed \(seed)")
    let parsed = json.text.dropFirst().dropLast().split(separator: ",").compactMap { Double($0) }
    XCTAssertEqual(parsed.count, values.count, "seed \(seed)")
    for (value, read) in zip(values, parsed) {
      // Half a millionth from the printing, plus the rounding of reading it back.
      // Below 0.001: Float's rounding plus its shortest printing, within 2^-22 relative.
      let tolerance = value.magnitude >= 0.001 ? 5e-7 + value.ulp : value.magnitude * 0x1p-22
      XCTAssertEqual(read, value, accuracy: tolerance, "seed \(seed)")
    }
  }

  func testDataFrameHasTheDocumentedFieldsAndPerClientCounters() throws {
    var batch = DashboardBatch()
    batch.append(
      Array(repeating: 0.5, count: DashboardFrameEncoder.motionFields.count), to: .motion)
    batch.append([1, 0, 0, -1], to: .accelerometer)
    batch.append(DashboardEvent(time: 1, kind: "shake", detail: "began"))
    var state = DashboardFeedState()
    state.orientation = "portrait"
    state.health.note(.accelerometer, time: 0)
    let recording = DashboardRecorder.Status(
      isRecording: false, file: nil, samples: 0, message: nil)
    let body = DashboardFrameEncoder.dataFrameBody(
      sequence: 7, batch: batch, state: state, recording: recording)
    let frame = try parse(
      DashboardFrameEncoder.finish(
        body, droppedFrames: 3, sentFrames: 9, serverClients: 2, serverDroppedFrames: 40))
    XCTAssertEqual(frame["type"] as? String, "data")
    XCTAssertEqual(frame["seq"] as? Int, 7)
    XCTAssertEqual(frame["orientation"] as? String, "portrait")
    XCTAssertEqual(
      (frame["motion"] as? [[Any]])?.first?.count, DashboardFrameEncoder.motionFields.count)
    XCTAssertEqual((frame["accelerometer"] as? [[Double]])?.first, [1, 0, 0, -1])
    XCTAssertEqual((frame["events"] as? [[String: Any]])?.first?["kind"] as? String, "shake")
    XCTAssertNotNil(frame["pedometer"] as? [String: Any])
    XCTAssertNotNil((frame["health"] as? [String: Any])?["sensors"] as? [String: Any])
    XCTAssertEqual((frame["client"] as? [String: Any])?["droppedFrames"] as? Int, 3)
    XCTAssertEqual((frame["server"] as? [String: Any])?["clients"] as? Int, 2)
    XCTAssertEqual((frame["server"] as? [String: Any])?["droppedFrames"] as? Int, 40)
  }

  func testBatchIsBoundedAndCountsWhatDidNotFit() {
    var batch = DashboardBatch()
    for index in 0..<(DashboardBatch.maximumRows + 10) {
      batch.append([Double(index), 0, 0, 0], to: .accelerometer)
    }
    XCTAssertEqual(batch.accelerometer.count, DashboardBatch.maximumRows)
    XCTAssertEqual(batch.droppedRows, 10)
  }

  func testClientQueueKeepsTheNewestFramesAndCountsDrops() async {
    let queue = DashboardClientQueue(capacity: 4)
    for index in 0..<10 { queue.offer(String(index)) }
    queue.finish()
    var received: [String] = []
    for await frame in queue.frames { received.append(frame.text ?? "binary") }
    XCTAssertEqual(received, ["6", "7", "8", "9"])
    XCTAssertEqual(queue.droppedFrames, 6)
  }

  func testHealthMeterMeasuresRateAndGaps() {
    var meter = StreamHealthMeter()
    // 100 Hz for 2 s, then a 0.1 s gap (9 samples missing), then 100 Hz again.
    var time = 0.0
    for _ in 0..<200 { meter.note(time: time); time += 0.01 }
    time += 0.09
    // Long enough after the gap for a whole window without it (the window holding the gap reads
    // lower).
    for _ in 0..<250 { meter.note(time: time); time += 0.01 }
    // Rate from a window of whole periods: exact up to rounding of the sums (1e-6 Hz).
    XCTAssertEqual(meter.rate ?? 0, 100, accuracy: 1e-6)
    XCTAssertEqual(meter.missed, 9)
    XCTAssertEqual(meter.total, 450)
  }

  func testRecorderFileNamesStayInsideTheDirectory() {
    XCTAssertEqual(DashboardRecorder.safeFileName("../../etc/passwd"), "etcpasswd.csv")
    XCTAssertEqual(DashboardRecorder.safeFileName("walk 1.csv"), "walk1.csv")
    XCTAssertEqual(DashboardRecorder.safeFileName(".hidden"), "hidden.csv")
    XCTAssertTrue(DashboardRecorder.safeFileName(nil).hasPrefix("dashboard-"))
    XCTAssertLessThanOrEqual(
      DashboardRecorder.safeFileName(String(repeating: "a", count: 500)).count, 68)
    XCTAssertFalse(DashboardRecorder.safeFileName("a/b\\c\u{0}").contains("/"))
  }

  func testControlMessagesAreParsedAndOversizedOnesRefused() {
    XCTAssertEqual(DashboardControlMessage.parse(#"{"op":"setRate","rate":25}"#)?.rate, 25)
    XCTAssertNil(DashboardControlMessage.parse("not json"))
    XCTAssertNil(DashboardControlMessage.parse(#"{"rate":25}"#))
    XCTAssertNil(
      DashboardControlMessage.parse(String(repeating: " ", count: 5000) + #"{"op":"x"}"#))
  }

  func testTokensAreRandomAndLongEnough() {
    let a = DashboardConfiguration.makeToken()
    let b = DashboardConfiguration.makeToken()
    XCTAssertEqual(a.count, 32)
    XCTAssertNotEqual(a, b)
    XCTAssertTrue(DashboardConfiguration.isLoopback("127.0.0.1"))
    XCTAssertFalse(DashboardConfiguration.isLoopback("0.0.0.0"))
  }
}
