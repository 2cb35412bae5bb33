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

  /// A phyphox `/get` answer with accelerometer rows at `times`.
  private func phyphoxAnswer(_ times: [Double]) throws -> PhoneJSON {
    let list = times.map { "\($0)" }.joined(separator: ",")
    let ones = times.map { _ in "0.1" }.joined(separator: ",")
    let json =
      "{\"buffer\":{\"acc_time\":{\"buffer\":[\(list)]},\"accX\":{\"buffer\":[\(ones)]},"
      + "\"accY\":{\"buffer\":[\(ones)]},\"accZ\":{\"buffer\":[\(ones)]}},"
      + "\"status\":{\"session\":\"s1\",\"measuring\":true}}"
    return try PhoneJSON.parse(Array(json.utf8))
  }

  func testAbsurdPhyphoxTimeIsDroppedAndCountedAndLaterRowsFlow() throws {
    let group = PhyphoxBufferGroup(
      sensor: .accelerometer, time: "acc_time", components: ["accX", "accY", "accZ"])
    var poller = PhyphoxPoller(groups: [group])
    // The first answer is one row stamped 1e308 (then -1 and 2e7: negative and beyond the bound).
    XCTAssertTrue(try poller.consume(phyphoxAnswer([1e308])).samples.isEmpty)
    XCTAssertTrue(try poller.consume(phyphoxAnswer([-1, 2e7])).samples.isEmpty)
    XCTAssertEqual(poller.implausibleTimeCount, 3)
    // Genuine rows follow, among them another absurd one.
    let outcome = try poller.consume(phyphoxAnswer([1.0, 1e308, 1.01]))
    XCTAssertEqual(outcome.samples.map(\.timestamp), [1.0, 1.01])
    XCTAssertEqual(poller.implausibleTimeCount, 4)
    // Nothing new, then a probe that sees the absurd time again: no clock restart to 1e308.
    XCTAssertTrue(try poller.consume(phyphoxAnswer([])).samples.isEmpty)
    XCTAssertTrue(try poller.consume(phyphoxAnswer([1e308])).samples.isEmpty)
    XCTAssertEqual(poller.timeOffset, 0)
    XCTAssertEqual(try poller.consume(phyphoxAnswer([1.02])).samples.map(\.timestamp), [1.02])
    XCTAssertEqual(poller.lastTimestamp, 1.02)
    var buffer = SampleReorderBuffer()
    buffer.countImplausible(poller.implausibleTimeCount)
    XCTAssertEqual(buffer.implausibleDropNotice(source: "phyphox")?.isFatal, false)
  }

  /// Sensor Logger readings at `times` (seconds of phone epoch time) for a stream's reorder buffer.
  private func gyroscope(_ times: [Double]) -> [MotionSample] {
    times.map { MotionSample(timestamp: $0, gyroscope: SIMD3(1, 0, 0)) }
  }

  func testAForgedTimeCannotShiftTheClockMappingForGood() {
    let now = 1_795_000_000.0  // the phone's epoch seconds
    // Mapping established by genuine readings; then a reading stamped 1970 is dropped, counted,
    // and leaves the mapping alone.
    var buffer = SampleReorderBuffer(holdTime: 0.1, maximumDelay: 0.3, clock: .receiverBoot)
    buffer.maximumClockDistance = SensorLoggerStream.maximumClockDistance
    buffer.insert(gyroscope([now, now + 0.01]), now: 0)
    let offset = buffer.clockMapping.offset
    buffer.insert(gyroscope([0]), now: 0)
    buffer.insert(gyroscope([now + 1e9]), now: 0)
    XCTAssertEqual(buffer.clockMapping.offset, offset)
    XCTAssertEqual(buffer.droppedImplausibleCount, 2)

    // The forged reading comes first and sets the mapping: the genuine stream takes over after
    // `resynchronisationCount` readings, delivered near this machine's boot clock.
    var forged = SampleReorderBuffer(holdTime: 0.1, maximumDelay: 0.3, clock: .receiverBoot)
    forged.maximumClockDistance = SensorLoggerStream.maximumClockDistance
    forged.insert(gyroscope([0]), now: 0)
    _ = forged.release(now: 1)
    var delivered: [MotionSample] = []
    for step in 0..<(forged.resynchronisationCount + 10) {
      forged.insert(gyroscope([now + Double(step) * 0.01]), now: 1)
      delivered += forged.release(now: 2)
    }
    XCTAssertEqual(forged.resynchronisations, 1)
    XCTAssertEqual(
      delivered.last?.timestamp ?? 0, BootClock.now, accuracy: 5, "on this machine's boot clock")
  }

  /// A forged first session (stamped 1970) sets the clock mapping; the phone's own session that
  /// follows is held to that mapping too (a new `sessionId` is no free reset, see
  /// `SensorLoggerSessionTimelineTests`), so it is followed after
  /// `resynchronisationCount` readings in a row, which its first push (a second of readings)
  /// holds, and is then delivered near this machine's boot clock.
  func testAForgedFirstSensorLoggerSessionDoesNotPinTheClockMapping() {
    var stream = SensorLoggerStream(
      convention: .android, messageReorderWindow: 0, sampleHoldTime: 0, maximumSampleDelay: 0,
      clock: .receiverBoot)
    func body(_ session: String, _ id: Int, _ times: [Int64]) -> [UInt8] {
      let readings = times.map {
        "{\"name\":\"gyroscope\",\"time\":\($0),\"values\":{\"x\":1,\"y\":0,\"z\":0}}"
      }
      return Array(
        ("{\"messageId\":\(id),\"sessionId\":\"\(session)\",\"payload\":["
          + readings.joined(separator: ",") + "]}").utf8)
    }
    let genuine: Int64 = 1_795_000_000_000_000_000
    let firstPush = (0..<50).map { genuine + Int64($0) * 10_000_000 }
    _ = stream.receive(body: body("a", 0, [0]), now: 0)  // forged: 1970
    _ = stream.receive(body: body("b", 0, firstPush), now: 1)
    var events = stream.receive(body: body("b", 1, [genuine + 500_000_000]), now: 2).events
    events += stream.flush(now: 3)
    XCTAssertEqual(stream.reorderBuffer.resynchronisations, 1)
    let times = events.compactMap { event -> Double? in
      if case .sample(let sample) = event { return sample.timestamp } else { return nil }
    }
    XCTAssertFalse(times.isEmpty)
    XCTAssertEqual(times.last ?? 0, BootClock.now, accuracy: 5, "\(times)")
  }
}
