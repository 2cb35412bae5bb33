// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import XCTest

@testable import PhoneStreamDecoding

/// Attacker-chosen numbers in phone input become counted skips, never traps or a stuck stream.
final class DecodingHardeningTests: XCTestCase {
  private func batch(_ json: String) throws -> SensorLoggerBatch {
    try SensorLoggerBatch(body: Array(json.utf8))
  }

  /// `"nan"`, `"inf"` and out-of-range strings are not numbers (they used to parse as NaN/∞).
  func testNonFiniteNumberStringsAreRejected() {
    for text in ["nan", "NaN", "inf", "-infinity", "1e999", " nan "] {
      XCTAssertNil(PhoneJSON.string(text).doubleValue, text)
    }
    XCTAssertEqual(PhoneJSON.string(" 1.5 ").doubleValue, 1.5)
    XCTAssertEqual(PhoneJSON.integer(3).doubleValue, 3)
  }

  func testExtremeTimesDoNotOverflowInTheConverter() throws {
    let body =
      "{\"payload\":[{\"name\":\"gravity\",\"time\":-9223372036854775808,\"values\":{\"x\":0,\"y\":0,\"z\":9.8}},"
      + "{\"name\":\"orientation\",\"time\":9223372036854775807,\"values\":{\"qx\":0,\"qy\":0,\"qz\":0,\"qw\":1}},"
      + "{\"name\":\"accelerometer\",\"time\":9223372036854775807,\"values\":{\"x\":0,\"y\":0,\"z\":1}}]}"
    let hostile = try batch(body)
    XCTAssertNil(SensorLoggerConverter.detectConvention(in: hostile), "too far apart to pair")
    var converter = SensorLoggerConverter(convention: .android)
    let (samples, _) = converter.convert(hostile)
    XCTAssertTrue(samples.isEmpty, "an accelerometer reading 2⁶⁴ ns from its gravity is not paired")
    XCTAssertEqual(SensorLoggerConverter.distance(.min, .max), UInt64.max)
    XCTAssertEqual(SensorLoggerConverter.distance(5, -5), 10)
  }

  func testUnsequenceableMessageIDsAreCountedSkips() throws {
    var sequencer = SensorLoggerMessageSequencer(window: 0.5)
    let top = try batch("{\"messageId\":9223372036854775807,\"sessionId\":\"a\",\"payload\":[]}")
    let negative = try batch("{\"messageId\":-3,\"sessionId\":\"a\",\"payload\":[]}")
    XCTAssertTrue(sequencer.accept(top, now: 0).ready.isEmpty)
    XCTAssertTrue(sequencer.accept(negative, now: 0).ready.isEmpty)
    XCTAssertEqual(sequencer.skippedMessageCount, 2)
    // Just below the top is still sequenced (its successor exists).
    let high = try batch("{\"messageId\":9223372036854775806,\"sessionId\":\"a\",\"payload\":[]}")
    XCTAssertTrue(sequencer.accept(high, now: 0).ready.isEmpty, "held: earlier ids may come")
    XCTAssertEqual(sequencer.release(now: 1).count, 1)
  }

  func testHeldMessagesAreBounded() throws {
    var sequencer = SensorLoggerMessageSequencer(window: 1_000)
    _ = sequencer.accept(try batch("{\"messageId\":0,\"sessionId\":\"a\",\"payload\":[]}"), now: 0)
    var released = 0
    // Every other id: each leaves a gap, so all would wait without the bound.
    for id in stride(
      from: 2, through: 2 * (SensorLoggerMessageSequencer.maximumHeldMessages + 50), by: 2)
    {
      let next = try batch("{\"messageId\":\(id),\"sessionId\":\"a\",\"payload\":[]}")
      released += sequencer.accept(next, now: 0).ready.count
    }
    XCTAssertEqual(released, 50, "the oldest gaps are given up on beyond the bound")
  }

  func testFarFutureSampleDoesNotMoveTheBuffersClock() {
    var buffer = SampleReorderBuffer(holdTime: 0.1, maximumDelay: 0.3)
    buffer.insert([MotionSample(timestamp: 100, gyroscope: SIMD3(0, 0, 0))], now: 0)
    buffer.insert([MotionSample(timestamp: 1e12, gyroscope: SIMD3(9, 9, 9))], now: 0)
    buffer.insert([MotionSample(timestamp: .nan, gyroscope: SIMD3(9, 9, 9))], now: 0)
    var delivered = buffer.release(now: 1)
    for step in 1...10 {
      buffer.insert(
        [MotionSample(timestamp: 100 + Double(step) * 0.01, gyroscope: SIMD3(1, 0, 0))], now: 1)
      delivered += buffer.release(now: 2)
    }
    XCTAssertEqual(delivered.count, 11, "every genuine sample is delivered")
    XCTAssertFalse(delivered.contains { $0.gyroscope?.x == 9 })
    XCTAssertEqual(buffer.droppedImplausibleCount, 2)
    XCTAssertEqual(buffer.droppedLateCount, 0)
    var copy = buffer
    XCTAssertEqual(copy.implausibleDropNotice(source: "test")?.isFatal, false)
  }

  func testAForgedFirstSampleIsLeftBehindWhenTheRealStreamPersists() {
    var buffer = SampleReorderBuffer(holdTime: 0.1, maximumDelay: 0.3)
    // The forged sample comes first, so it is released before anything can be compared with it.
    buffer.insert([MotionSample(timestamp: 1e12, gyroscope: SIMD3(9, 9, 9))], now: 0)
    XCTAssertEqual(buffer.release(now: 1).count, 1)
    var delivered: [MotionSample] = []
    for step in 0..<(buffer.resynchronisationCount + 10) {
      buffer.insert(
        [MotionSample(timestamp: 100 + Double(step) * 0.01, gyroscope: SIMD3(1, 0, 0))], now: 1)
      delivered += buffer.release(now: 2)
    }
    XCTAssertEqual(buffer.resynchronisations, 1)
    XCTAssertEqual(
      delivered.count, 11, "after \(buffer.resynchronisationCount) samples the real stream flows")
    XCTAssertEqual(delivered.map(\.timestamp), delivered.map(\.timestamp).sorted())
  }
}
