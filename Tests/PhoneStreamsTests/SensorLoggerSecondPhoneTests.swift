// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import XCTest

@testable import PhoneStreamDecoding

/// Two phones pushing to one Sensor Logger receiver: their recordings interleave and many samples
/// are dropped as late, which said nothing about the cause. The `deviceId` of the messages tells.
final class SensorLoggerSecondPhoneTests: XCTestCase {
  /// A push of one gyroscope reading at `time` (epoch ns) from `device` in `session`.
  private func body(device: String, session: String, id: Int, time: Int64) -> [UInt8] {
    Array(
      ("{\"messageId\":\(id),\"sessionId\":\"\(session)\",\"deviceId\":\"\(device)\",\"payload\":"
        + "[{\"name\":\"gyroscope\",\"time\":\(time),\"values\":{\"x\":1,\"y\":0,\"z\":0}}]}").utf8)
  }

  private func notices(_ events: [SourceEvent]) -> [String] {
    events.compactMap { event in
      if case .failure(let failure) = event, failure.message.contains("second phone") {
        return failure.message
      }
      return nil
    }
  }

  func testASecondPhoneIsReportedOnceNamingBothDevices() {
    var stream = SensorLoggerStream(
      convention: .android, messageReorderWindow: 0, sampleHoldTime: 0, maximumSampleDelay: 0,
      clock: .phone)
    let start: Int64 = 1_795_000_000_000_000_000
    var events: [SourceEvent] = []
    for index in 0..<20 {
      let time = start + Int64(index) * 100_000_000
      events +=
        stream.receive(
          body: body(device: "pixel-A", session: "a", id: index, time: time),
          now: Double(index) * 0.1
        ).events
      // The second phone's clock is a second behind.
      events +=
        stream.receive(
          body: body(device: "iphone-B", session: "b", id: index, time: time - 1_000_000_000),
          now: Double(index) * 0.1 + 0.05
        ).events
    }
    let found = notices(events)
    XCTAssertEqual(found.count, 1, "\(found)")
    XCTAssertTrue(found.first?.contains("iphone-B") ?? false, "\(found)")
    XCTAssertTrue(found.first?.contains("pixel-A") ?? false, "\(found)")

    // One phone starting new recordings (new sessionId, same deviceId) is no second phone.
    var single = SensorLoggerStream(
      convention: .android, messageReorderWindow: 0, sampleHoldTime: 0, maximumSampleDelay: 0,
      clock: .phone)
    var singleEvents: [SourceEvent] = []
    for index in 0..<5 {
      singleEvents +=
        single.receive(
          body: body(
            device: "pixel-A", session: "s\(index)", id: 0,
            time: start + Int64(index) * 1_000_000_000),
          now: Double(index)
        ).events
    }
    XCTAssertEqual(notices(singleEvents), [])
  }
}
