// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import XCTest

@testable import PhoneStreamDecoding

/// A new Sensor Logger recording (a new `sessionId`, or a counter back at 0 without one) carries
/// the sample timeline over: anyone on the network can announce one, so it must not reset what
/// keeps delivered timestamps plausible and increasing (fusion and recordings rely on both).
final class SensorLoggerSessionTimelineTests: XCTestCase {
  /// Phone epoch nanoseconds of the genuine readings (late 2026).
  private static let genuine: Int64 = 1_795_000_000_000_000_000
  /// 2100-01-01 in epoch nanoseconds.
  private static let year2100: Int64 = 4_102_444_800_000_000_000

  /// A push of gyroscope readings at `times` (epoch ns) with x = `x`; `session` `nil` leaves the
  /// `sessionId` out.
  private func body(_ session: String?, id: Int, times: [Int64], x: Int = 1) -> [UInt8] {
    let readings = times.map {
      "{\"name\":\"gyroscope\",\"time\":\($0),\"values\":{\"x\":\(x),\"y\":0,\"z\":0}}"
    }
    let sessionMember = session.map { ",\"sessionId\":\"\($0)\"" } ?? ""
    return Array(
      ("{\"messageId\":\(id)\(sessionMember),\"payload\":[" + readings.joined(separator: ",") + "]}")
        .utf8)
  }

  private func samples(_ events: [SourceEvent]) -> [MotionSample] {
    events.compactMap { event in
      if case .sample(let sample) = event { return sample } else { return nil }
    }
  }

  private func makeStream(clock: PhoneStreamClock) -> SensorLoggerStream {
    SensorLoggerStream(
      convention: .android, messageReorderWindow: 0, sampleHoldTime: 0, maximumSampleDelay: 0,
      clock: clock)
  }

  /// The reviewer's case, on the phone's clock: a push under a made-up session stamped 2100
  /// between two of the phone's pushes is dropped (and counted), and the delivered timestamps
  /// never decrease. Before the fix the new session reset the buffer, so 2100 was delivered and
  /// the phone's next reading went back 74 years. Checked for both ways of starting a recording:
  /// a new `sessionId`, and `messageId` 0 without one.
  func testAnotherSessionCannotDeliverAForgedTimeOnThePhonesClock() {
    for forgedSession in ["evil", nil] as [String?] {
      var stream = makeStream(clock: .phone)
      var events = stream.receive(body: body("phone", id: 0, times: [Self.genuine]), now: 0).events
      if forgedSession == nil {
        // Without a session id, a counter back at 0 is taken as a new recording.
        events += stream.receive(body: body(nil, id: 0, times: [Self.genuine]), now: 0.5).events
        events += stream.receive(body: body(nil, id: 1, times: [Self.genuine]), now: 0.5).events
      }
      events +=
        stream.receive(
          body: body(forgedSession, id: 0, times: [Self.year2100], x: 9), now: 1
        ).events
      events +=
        stream.receive(
          body: body("phone", id: 1, times: [Self.genuine + 1_000_000_000]), now: 2
        ).events
      events += stream.flush(now: 3)
      let times = samples(events).map(\.timestamp)
      let label = "forged session \(forgedSession ?? "none"): \(times)"
      XCTAssertEqual(times, times.sorted(), label)
      XCTAssertFalse(samples(events).contains { $0.gyroscope?.x == 9 }, label)
      XCTAssertEqual(times.last, phoneStreamSeconds(nanoseconds: Self.genuine + 1_000_000_000))
      XCTAssertEqual(stream.reorderBuffer.droppedImplausibleCount, 1, label)
    }
  }

  /// On the default boot clock, a made-up session whose push spans a few seconds used to get a
  /// fresh clock mapping (its newest reading at the arrival time), which put its older readings
  /// before what had been delivered, and the phone's next push went back again. The mapping now
  /// carries over, so nothing delivered is earlier than what came before.
  func testAlternatingSessionsKeepBootClockTimestampsIncreasing() {
    var stream = makeStream(clock: .receiverBoot)
    var events = stream.receive(body: body("phone", id: 0, times: [Self.genuine]), now: 0).events
    let span = (0...5).map { Self.genuine - Int64(5 - $0) * 1_000_000_000 }
    events += stream.receive(body: body("other", id: 0, times: span, x: 9), now: 0.1).events
    events +=
      stream.receive(
        body: body("phone", id: 1, times: [Self.genuine + 10_000_000]), now: 0.2
      ).events
    events += stream.receive(body: body("other", id: 1, times: span, x: 9), now: 0.3).events
    events +=
      stream.receive(
        body: body("phone", id: 2, times: [Self.genuine + 20_000_000]), now: 0.4
      ).events
    events += stream.flush(now: 1)
    let times = samples(events).map(\.timestamp)
    XCTAssertEqual(times, times.sorted(), "\(times)")
    XCTAssertEqual(samples(events).filter { $0.gyroscope?.x == 1 }.count, 3)
    XCTAssertGreaterThan(stream.reorderBuffer.droppedLateCount, 0)
  }

  /// What the carried-over timeline must not break: the phone's next recording, minutes later on
  /// its UTC clock, is delivered whole, because the lead a reading may have grows with the wall
  /// time since the newest one arrived.
  func testAGenuineNewRecordingAfterAPauseIsDeliveredWhole() {
    var stream = makeStream(clock: .phone)
    let first = (0..<5).map { Self.genuine + Int64($0) * 10_000_000 }
    let later = Self.genuine + 300_000_000_000  // five minutes on
    let second = (0..<5).map { later + Int64($0) * 10_000_000 }
    var events = stream.receive(body: body("a", id: 0, times: first), now: 0).events
    events += stream.receive(body: body("b", id: 0, times: second), now: 300.2).events
    events += stream.flush(now: 301)
    XCTAssertEqual(samples(events).count, 10)
    XCTAssertEqual(stream.reorderBuffer.droppedImplausibleCount, 0)
    XCTAssertEqual(stream.reorderBuffer.droppedLateCount, 0)
    XCTAssertEqual(stream.reorderBuffer.resynchronisations, 0)
    // Without that wall time, the same jump is far ahead of the stream.
    var hurried = makeStream(clock: .phone)
    _ = hurried.receive(body: body("a", id: 0, times: first), now: 0)
    _ = hurried.receive(body: body("b", id: 0, times: [later]), now: 1)
    XCTAssertEqual(hurried.reorderBuffer.droppedImplausibleCount, 1)
  }

  /// On the boot clock the delivered time is a floor even across a resynchronisation (the phone's
  /// clock really jumped back): the new mapping puts the new timeline's newest reading at its
  /// arrival, so its older readings would land before what was delivered; they are dropped and
  /// counted as late instead.
  func testAResynchronisationNeverTakesBootClockTimestampsBack() {
    var buffer = SampleReorderBuffer(holdTime: 0.1, maximumDelay: 0.3, clock: .receiverBoot)
    buffer.maximumClockDistance = SensorLoggerStream.maximumClockDistance
    let now = 1_795_000_000.0
    func gyroscope(_ times: [Double]) -> [MotionSample] {
      times.map { MotionSample(timestamp: $0, gyroscope: SIMD3(1, 0, 0)) }
    }
    buffer.insert(gyroscope([now]), now: 0)
    var delivered = buffer.release(now: 1)
    XCTAssertEqual(delivered.count, 1)
    let jumped = now - 1_000
    buffer.insert(gyroscope((0..<25).map { jumped + Double($0) * 0.2 }), now: 1)
    delivered += buffer.release(now: 2)
    XCTAssertEqual(buffer.resynchronisations, 1)
    let times = delivered.map(\.timestamp)
    XCTAssertEqual(times, times.sorted(), "\(times)")
    XCTAssertGreaterThan(delivered.count, 1, "the new timeline flows")
    XCTAssertEqual(buffer.lastDeliveredTimestamp, times.last)
  }
}
