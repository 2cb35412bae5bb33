// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import XCTest

@testable import PhoneStreamDecoding

/// A Sensor Logger phone that stops pushing (it left the network, its recording stopped, a push
/// stalled halfway): the receiver said nothing, and the stream just stopped.
final class SensorLoggerSilenceTests: XCTestCase {
  /// A push of one gyroscope reading at `time` (epoch ns).
  private func body(id: Int, time: Int64) -> [UInt8] {
    Array(
      ("{\"messageId\":\(id),\"sessionId\":\"s\",\"deviceId\":\"phone\",\"payload\":"
        + "[{\"name\":\"gyroscope\",\"time\":\(time),\"values\":{\"x\":1,\"y\":0,\"z\":0}}]}").utf8)
  }

  private func silenceNotices(_ events: [SourceEvent]) -> [SourceFailure] {
    events.compactMap { event in
      if case .failure(let failure) = event, failure.message.contains("no push from the phone") {
        return failure
      }
      return nil
    }
  }

  func testSilenceAfterPushesIsReportedOncePerSilence() {
    var stream = SensorLoggerStream(
      convention: .android, messageReorderWindow: 0, sampleHoldTime: 0, maximumSampleDelay: 0,
      clock: .phone)
    let delay = 10.0  // SensorLoggerStream.silenceReportDelay
    // Nothing to report before the first push: the phone may not have started yet.
    XCTAssertTrue(silenceNotices(stream.tick(now: 1_000)).isEmpty)
    let start: Int64 = 1_795_000_000_000_000_000
    var events: [SourceEvent] = []
    for index in 0..<5 {
      let now = 1_000 + Double(index)
      events +=
        stream.receive(body: body(id: index, time: start + Int64(index) * 1_000_000_000), now: now)
        .events
      events += stream.tick(now: now + 0.5)
    }
    XCTAssertTrue(silenceNotices(events).isEmpty, "pushes every second")
    // The last push came at 1004: silent until 1004 + delay, then one notice.
    events = stream.tick(now: 1_004 + delay - 0.5)
    XCTAssertTrue(silenceNotices(events).isEmpty)
    events = stream.tick(now: 1_004 + delay) + stream.tick(now: 1_004 + 3 * delay)
    let notices = silenceNotices(events)
    XCTAssertEqual(notices.count, 1, "\(notices)")
    XCTAssertEqual(notices.first?.kind, .disconnected)
    XCTAssertEqual(notices.first?.isFatal, false, "the stream resumes with the next push")
    // The phone comes back and goes quiet again: a new silence, a new notice.
    let back = 1_004 + 4 * delay
    _ = stream.receive(body: body(id: 5, time: start + 5_000_000_000), now: back)
    XCTAssertEqual(silenceNotices(stream.tick(now: back + delay)).count, 1)
  }
}
