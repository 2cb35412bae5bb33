// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import XCTest

@testable import PhoneStreamDecoding

/// The reading budget of ``SensorLoggerMessageSequencer``: what waits for gaps is bounded by the
/// readings it carries, not only by message count, and traffic a phone sends never reaches it.
final class SensorLoggerHeldReadingBudgetTests: XCTestCase {
  private static let baseTime: Int64 = 1_700_000_000_000_000_000

  /// A push body with `readings` gyroscope readings, 2 ms apart from `firstTime`.
  private static func body(
    messageID: Int64, session: String = "s", readings: Int, firstTime: Int64 = baseTime
  ) -> [UInt8] {
    var text = "{\"messageId\":\(messageID),\"sessionId\":\"\(session)\",\"payload\":["
    for index in 0..<readings {
      if index > 0 { text += "," }
      text +=
        "{\"name\":\"gyroscope\",\"time\":\(firstTime + Int64(index) * 2_000_000),"
        + "\"values\":{\"x\":0.01,\"y\":-0.02,\"z\":0.03}}"
    }
    return Array((text + "]}").utf8)
  }

  private static func batch(
    _ messageID: Int64, session: String = "s", readings: Int
  ) throws -> SensorLoggerBatch {
    try SensorLoggerBatch(body: body(messageID: messageID, session: session, readings: readings))
  }

  /// The attack the message cap alone let through: 256 messages of 10 000 readings each, every
  /// one leaving a gap before it, all arriving at once with a window that never ends. Before the
  /// budget all 256 were held (2.56 million readings); now the held readings never pass the
  /// budget, the oldest gaps are given up on in order and counted, and no message is lost.
  func testManyLargeMessagesNeverHoldMoreThanTheBudget() throws {
    let budget = SensorLoggerMessageSequencer.defaultMaximumHeldReadings
    // One decoded body, renumbered: the budget counts readings, so shared storage is enough.
    let template = try Self.batch(0, readings: 10_000)
    XCTAssertEqual(template.readings.count, 10_000)
    var sequencer = SensorLoggerMessageSequencer(window: 1_000)
    var delivered = sequencer.accept(template, now: 0).ready.compactMap(\.messageID)
    var peak = 0
    for index in 1...256 {
      var next = template
      next.messageID = Int64(2 * index)  // 2, 4, …: each waits for the odd id before it.
      delivered += sequencer.accept(next, now: 0).ready.compactMap(\.messageID)
      peak = max(peak, sequencer.heldReadingCount)
      XCTAssertLessThanOrEqual(sequencer.heldReadingCount, budget, "after message \(index)")
      XCTAssertEqual(sequencer.heldReadingCount, sequencer.heldMessageCount * 10_000)
    }
    XCTAssertEqual(peak, budget, "20 messages of 10 000 fill the budget exactly")
    XCTAssertEqual(sequencer.heldMessageCount, 20)
    XCTAssertEqual(sequencer.earlyReleasedMessageCount, 236, "one released per message past 20")
    XCTAssertEqual(sequencer.skippedMessageCount, 0)
    // A straggler for a gap given up on is still passed on.
    let straggler = try Self.batch(1, readings: 1)
    XCTAssertEqual(sequencer.accept(straggler, now: 0).ready.map(\.messageID), [1])
    delivered += sequencer.release(now: 0, flushAll: true).compactMap(\.messageID)
    XCTAssertEqual(sequencer.heldReadingCount, 0)
    XCTAssertEqual(delivered, [0] + (1...256).map { Int64(2 * $0) }, "all, in id order")
  }

  /// The budget applies to messages held before message 0 has been seen, too, and a single
  /// message larger than the whole budget is passed straight on instead of held.
  func testBudgetHoldsWithoutAnExpectedIDAndForOversizedMessages() throws {
    var sequencer = SensorLoggerMessageSequencer(window: 1_000, maximumHeldReadings: 25)
    XCTAssertEqual(sequencer.accept(try Self.batch(3, readings: 10), now: 0).ready.count, 0)
    XCTAssertEqual(sequencer.accept(try Self.batch(5, readings: 10), now: 0).ready.count, 0)
    XCTAssertEqual(sequencer.heldReadingCount, 20)
    // 3 is the oldest gap: it goes, 5 still fits.
    let ready = sequencer.accept(try Self.batch(7, readings: 10), now: 0).ready
    XCTAssertEqual(ready.map(\.messageID), [3])
    XCTAssertEqual(sequencer.heldReadingCount, 20)
    // A message of 30 readings: nothing held can stay beside it, nor can it.
    let oversized = sequencer.accept(try Self.batch(9, readings: 30), now: 0).ready
    XCTAssertEqual(oversized.map(\.messageID), [5, 7, 9])
    XCTAssertEqual(sequencer.heldReadingCount, 0)
    XCTAssertFalse(sequencer.isHolding)
    XCTAssertEqual(sequencer.earlyReleasedMessageCount, 4)
  }

  /// The running total follows every way a message leaves: in order, after the window, on a new
  /// session, and when an id held long enough to leave the recent ids is sent again (the later
  /// message replaces the earlier one instead of being counted twice).
  func testHeldReadingTotalFollowsEveryWayOut() throws {
    var sequencer = SensorLoggerMessageSequencer(window: 0.5)
    _ = sequencer.accept(try Self.batch(0, readings: 1), now: 0)
    _ = sequencer.accept(try Self.batch(5_000, readings: 7), now: 0)
    // 1 100 ids with gaps: the oldest gaps go at the message cap, 5 000 stays held, and its id
    // leaves the 1 024 recent ones.
    let single = try Self.batch(0, readings: 1)
    for id in stride(from: 2, through: 2_200, by: 2) {
      var next = single
      next.messageID = Int64(id)
      _ = sequencer.accept(next, now: 0.1)
    }
    XCTAssertEqual(sequencer.heldMessageCount, SensorLoggerMessageSequencer.maximumHeldMessages)
    XCTAssertEqual(sequencer.heldReadingCount, 7 + 255)
    XCTAssertEqual(sequencer.earlyReleasedMessageCount, 1_100 + 1 - 256)
    _ = sequencer.accept(try Self.batch(5_000, readings: 3), now: 0.2)
    XCTAssertEqual(sequencer.heldReadingCount, 3 + 255, "the resent message replaced the first")
    // The window passes for everything that arrived at 0.1 (5 000 now arrived at 0.2).
    XCTAssertEqual(sequencer.release(now: 0.65).count, 255)
    XCTAssertEqual(sequencer.heldReadingCount, 3)
    _ = sequencer.accept(try Self.batch(9, session: "t", readings: 4), now: 0.65)
    XCTAssertEqual(sequencer.heldReadingCount, 4, "a new session starts from nothing")
    XCTAssertEqual(sequencer.release(now: 2).map(\.messageID), [9])
    XCTAssertEqual(sequencer.heldReadingCount, 0)
  }

  /// Messages without a session id that wait for a gap go out, in order, before the first message
  /// of a named session; until 2026-11-27 they were dropped without a count.
  func testHeldMessagesWithoutASessionAreDeliveredWhenASessionStarts() throws {
    func unnamed(_ id: Int64) throws -> SensorLoggerBatch {
      let text =
        "{\"messageId\":\(id),\"payload\":[{\"name\":\"gyroscope\",\"time\":"
        + "\(Self.baseTime + id * 1_000_000),\"values\":{\"x\":0,\"y\":0,\"z\":0}}]}"
      return try SensorLoggerBatch(body: Array(text.utf8))
    }
    var sequencer = SensorLoggerMessageSequencer(window: 0.5)
    XCTAssertEqual(sequencer.accept(try unnamed(0), now: 0).ready.map(\.messageID), [0])
    XCTAssertTrue(sequencer.accept(try unnamed(2), now: 0.1).ready.isEmpty, "waits for 1")
    let named = sequencer.accept(try Self.batch(0, session: "a", readings: 1), now: 0.2)
    XCTAssertEqual(named.ready.map(\.messageID), [2, 0])
    XCTAssertEqual(named.ready.map(\.sessionID), [nil, "a"])
    XCTAssertFalse(named.sessionChanged, "no named session was running")
    XCTAssertEqual(sequencer.heldMessageCount, 0)
    XCTAssertEqual(sequencer.heldReadingCount, 0)
  }

  /// A phone streaming five sensors at 500 Hz (2 500 readings a second) in 0.1 s messages for a
  /// minute, with reordered requests, a 0.4 s straggler every few seconds, and a 10 s network
  /// stall whose backlog of 100 messages then arrives at once, in reverse order. The budget
  /// changes nothing: no message goes early, the output is the unbounded sequencer's, and the
  /// most ever held stays far below the budget.
  func testOrdinaryPhoneTrafficIsUnaffected() throws {
    let template = try Self.batch(0, readings: 250)
    // (id, arrival) for 700 messages: 600 sent every 0.1 s, then 100 held back by a stall.
    var arrivals: [(id: Int64, time: Double)] = []
    for id in 0..<600 {
      var time = Double(id) * 0.1
      if id % 2 == 1 { time -= 0.12 }  // Overtakes the one before.
      if id % 37 == 5 { time += 0.4 }  // A straggler, within the window.
      arrivals.append((Int64(id), time))
    }
    for id in (600..<700).reversed() {
      arrivals.append((Int64(id), 70.0 + Double(699 - id) * 0.000_1))
    }
    arrivals.sort { $0.time < $1.time }

    func run(_ sequencer: inout SensorLoggerMessageSequencer) -> (ids: [Int64], peak: Int) {
      var ids: [Int64] = []
      var peak = 0
      var clock = 0.0
      for arrival in arrivals {
        while clock + 0.01 < arrival.time {  // The receiver's timer.
          clock += 0.01
          ids += sequencer.release(now: clock).compactMap(\.messageID)
        }
        var next = template
        next.messageID = arrival.id
        ids += sequencer.accept(next, now: arrival.time).ready.compactMap(\.messageID)
        peak = max(peak, sequencer.heldReadingCount)
      }
      ids += sequencer.release(now: clock + 1, flushAll: true).compactMap(\.messageID)
      return (ids, peak)
    }

    var bounded = SensorLoggerMessageSequencer(window: 0.5)
    var unbounded = SensorLoggerMessageSequencer(window: 0.5, maximumHeldReadings: .max)
    let (ids, peak) = run(&bounded)
    XCTAssertEqual(ids, run(&unbounded).ids)
    XCTAssertEqual(ids, Array(0..<700), "every message, in order")
    XCTAssertEqual(bounded.earlyReleasedMessageCount, 0)
    XCTAssertEqual(peak, 99 * 250, "the stall's backlog is the most held")
    XCTAssertLessThan(peak * 8, SensorLoggerMessageSequencer.defaultMaximumHeldReadings)
  }

  /// Through ``SensorLoggerStream``: early releases are counted and reported as advisory notices
  /// (`.other`, not fatal) the first time and at each power of ten, like the stream's other drops,
  /// and the samples of the messages released early are still delivered.
  func testStreamReportsEarlyReleasesAtPowersOfTen() throws {
    var stream = SensorLoggerStream(
      convention: .android, messageReorderWindow: 1_000, sampleHoldTime: 0,
      maximumSampleDelay: 0, clock: .phone, maximumHeldReadings: 4)
    var notices: [SourceFailure] = []
    var samples = 0
    func take(_ events: [SourceEvent]) {
      for event in events {
        switch event {
        // A gyroscope-only recording is also told it has no accelerometer: not counted here.
        case .failure(let failure) where !failure.message.contains("no accelerometer"):
          notices.append(failure)
        case .sample: samples += 1
        default: break
        }
      }
    }
    take(
      stream.receive(
        body: Self.body(messageID: 0, readings: 2), now: 0
      ).events)
    XCTAssertNil(notices.first)
    for index in 1...30 {
      // Two readings each, every one after a gap: from the third on, each pushes one out.
      let body = Self.body(
        messageID: Int64(2 * index), readings: 2,
        firstTime: Self.baseTime + Int64(index) * 10_000_000)
      take(stream.receive(body: body, now: 0).events)
      XCTAssertLessThanOrEqual(stream.heldReadingCount, 4)
    }
    XCTAssertEqual(stream.earlyReleasedMessageCount, 28)
    XCTAssertEqual(notices.count, 2, "at 1 and at 10: \(notices.map(\.message))")
    XCTAssertTrue(notices.allSatisfy { !$0.isFatal && $0.kind == .other })
    XCTAssertTrue(notices[0].message.contains("1 message(s) so far"), notices[0].message)
    XCTAssertTrue(notices[1].message.contains("10 message(s) so far"), notices[1].message)
    take(stream.flush(now: 1))
    XCTAssertEqual(samples, 31 * 2, "every reading of every message becomes a sample")
  }

  /// The budget counts readings and assumes each holds a few fields, so a reading keeps only the
  /// `values` fields the library reads: before, every numeric key was kept, and one reading with
  /// 20 000 extra keys held them all (about 90 000 fit in a 1 MiB body: megabytes per reading).
  func testReadingsKeepOnlyTheValueFieldsThatAreRead() throws {
    let extra = (0..<20_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
    func reading(_ name: String, _ fields: String) -> String {
      "{\"name\":\"\(name)\",\"time\":\(Self.baseTime),\"values\":{\(fields),\(extra)}}"
    }
    let body =
      "{\"messageId\":0,\"sessionId\":\"s\",\"payload\":["
      + reading("gyroscope", "\"x\":1,\"y\":2,\"z\":3") + ","
      + reading("barometer", "\"pressure\":1013.25,\"relativeAltitude\":4") + ","
      + reading("orientation", "\"qx\":0,\"qy\":0,\"qz\":0,\"qw\":1,\"roll\":0") + "]}"
    let batch = try SensorLoggerBatch(body: Array(body.utf8))
    XCTAssertEqual(batch.readings.map(\.name), ["gyroscope", "barometer", "orientation"])
    XCTAssertEqual(batch.readings[0].values, ["x": 1, "y": 2, "z": 3])
    XCTAssertEqual(batch.readings[1].values, ["pressure": 1013.25])
    XCTAssertEqual(batch.readings[2].values, ["qx": 0, "qy": 0, "qz": 0, "qw": 1])
    // What is kept is what the converter needs: the samples are unchanged.
    var converter = SensorLoggerConverter(convention: .android)
    let samples = converter.convert(batch).samples
    XCTAssertEqual(samples.compactMap(\.gyroscope), [SIMD3(1, 2, 3)])
    XCTAssertEqual(samples.compactMap(\.pressure), [101.325])
  }
}
