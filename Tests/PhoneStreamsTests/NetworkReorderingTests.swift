// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import XCTest

@testable import PhoneStreamDecoding
@testable import PhoneStreams

/// The jitter buffer and the Sensor Logger message sequencer, driven with explicit wall times.
final class NetworkReorderingTests: XCTestCase {
  func testJitterBufferReleasesInOrderAfterHoldTimeOrDelay() {
    var buffer = SampleReorderBuffer(holdTime: 0.1, maximumDelay: 0.3)
    buffer.insert(
      [
        MotionSample(timestamp: 1.00, gyroscope: .zero),
        MotionSample(timestamp: 0.95, gyroscope: .zero),
        MotionSample(timestamp: 1.02, accelerometer: .zero),
      ], now: 10)
    // Nothing is 0.1 s older than the newest (1.02) yet, and nothing has waited 0.3 s.
    XCTAssertEqual(buffer.release(now: 10).map(\.timestamp), [])
    buffer.insert([MotionSample(timestamp: 1.06, magnetometer: .zero)], now: 10.1)
    XCTAssertEqual(buffer.release(now: 10.1).map(\.timestamp), [0.95])
    // After 0.3 s of waiting everything that arrived at 10 goes, and so does what precedes it.
    XCTAssertEqual(buffer.release(now: 10.3).map(\.timestamp), [1.00, 1.02])
    XCTAssertEqual(buffer.release(now: 10.4).map(\.timestamp), [1.06])
    // Too late now: dropped and reported once.
    buffer.insert([MotionSample(timestamp: 1.01, gyroscope: .zero)], now: 10.5)
    XCTAssertTrue(buffer.isEmpty)
    XCTAssertEqual(buffer.droppedLateCount, 1)
    XCTAssertNotNil(buffer.lateDropNotice(source: "test"))
    XCTAssertNil(buffer.lateDropNotice(source: "test"), "the next notice waits for 10 drops")
  }

  func testEqualTimestampsWithDisjointSensorsMerge() {
    var buffer = SampleReorderBuffer()
    buffer.insert(
      [
        MotionSample(timestamp: 2, accelerometer: SIMD3(0, 0, 9.8)),
        MotionSample(timestamp: 2, gyroscope: SIMD3(1, 0, 0)),
        MotionSample(timestamp: 2, gyroscope: SIMD3(2, 0, 0)),
      ], now: 0)
    let released = buffer.release(now: 0, flushAll: true)
    XCTAssertEqual(released.count, 2, "a second gyroscope reading at the same time stays separate")
    XCTAssertEqual(released[0].sensors, [.accelerometer, .gyroscope])
    XCTAssertEqual(released[0].gyroscope, SIMD3(1, 0, 0))
    XCTAssertEqual(released[1].gyroscope, SIMD3(2, 0, 0))
  }

  private func batch(_ id: Int64?, session: String? = "s") -> SensorLoggerBatch {
    var body = "{\"payload\":[]"
    if let id { body += ",\"messageId\":\(id)" }
    if let session { body += ",\"sessionId\":\"\(session)\"" }
    return try! SensorLoggerBatch(body: Array((body + "}").utf8))
  }

  func testSequencerWaitsForGapsThenGivesUp() {
    var sequencer = SensorLoggerMessageSequencer(window: 0.5)
    XCTAssertEqual(sequencer.accept(batch(0), now: 0).ready.map(\.messageID), [0])
    XCTAssertEqual(sequencer.accept(batch(2), now: 0.1).ready.map(\.messageID), [])
    XCTAssertEqual(sequencer.accept(batch(3), now: 0.2).ready.map(\.messageID), [])
    XCTAssertEqual(sequencer.accept(batch(1), now: 0.3).ready.map(\.messageID), [1, 2, 3])
    XCTAssertEqual(
      sequencer.accept(batch(1), now: 0.3).ready.map(\.messageID), [], "duplicate dropped")
    XCTAssertEqual(sequencer.accept(batch(5), now: 1.0).ready.map(\.messageID), [])
    XCTAssertEqual(sequencer.release(now: 1.4).map(\.messageID), [])
    XCTAssertEqual(sequencer.release(now: 1.5).map(\.messageID), [5], "gap 4 given up after 0.5 s")
    XCTAssertEqual(
      sequencer.accept(batch(4), now: 1.6).ready.map(\.messageID), [4], "late, passed on")
    let restart = sequencer.accept(batch(7, session: "t"), now: 2)
    XCTAssertTrue(restart.sessionChanged)
    XCTAssertEqual(
      restart.ready.map(\.messageID), [], "a new recording starting past 0 waits for 0")
    XCTAssertEqual(sequencer.release(now: 2.5).map(\.messageID), [7])
  }

  func testSequencerWithoutSessionIDsTreatsCounterResetAsNewRecording() {
    var sequencer = SensorLoggerMessageSequencer(window: 0.5)
    _ = sequencer.accept(batch(0, session: nil), now: 0)
    _ = sequencer.accept(batch(1, session: nil), now: 0)
    let restart = sequencer.accept(batch(0, session: nil), now: 1)
    XCTAssertTrue(restart.sessionChanged)
    XCTAssertEqual(restart.ready.map(\.messageID), [0])
    XCTAssertEqual(
      sequencer.accept(batch(nil, session: nil), now: 1).ready.count, 1, "no id: passed straight on"
    )
  }
}
