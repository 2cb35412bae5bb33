// SPDX-License-Identifier: Apache-2.0

import MotionSensors

/// Entry points for the libFuzzer targets in `Fuzz/` — not API.
///
/// The decoders are `package` declarations, which the separate fuzz package cannot see, so these
/// functions run them the way the transports in `PhoneStreams` do, from raw bytes, behind the
/// `Fuzzing` SPI: `@_spi(Fuzzing) import PhoneStreamDecoding` is the only way to reach them, and
/// they are no part of the library's documented interface or its stability promise.
///
/// Each function takes the messages one connection would deliver, in order; the wall clock
/// advances by a fixed step per message so that holding and giving up on gaps are exercised
/// without real time passing. They return the number of samples delivered (so that the work cannot
/// be optimised away) and trap only where the decoders themselves would.
@_spi(Fuzzing) public enum PhoneStreamFuzzEntry {
  /// Wall seconds between two messages: longer than the hold times and windows below, so that
  /// every path (held, released, given up on) is reachable within a few messages.
  private static let messageInterval = 0.07

  /// Sensor Logger push bodies through decoding, message sequencing, unit conversion and sample
  /// reordering (`SensorLoggerStream`), then a flush as when the receiver stops.
  public static func sensorLogger(bodies: [[UInt8]], convention: UInt8) -> Int {
    let given: SensorLoggerConverter.Convention? =
      switch convention % 3 {
      case 0: nil
      case 1: .iOS
      default: .android
      }
    var stream = SensorLoggerStream(
      convention: given, messageReorderWindow: 0.1, sampleHoldTime: 0.05, maximumSampleDelay: 0.2,
      clock: convention & 4 == 0 ? .phone : .receiverBoot)
    var now = 0.0
    var delivered = 0
    func count(_ events: [SourceEvent]) {
      for case .sample in events { delivered += 1 }
    }
    for body in bodies {
      now += messageInterval
      count(stream.receive(body: body, now: now).events)
      count(stream.tick(now: now + messageInterval / 2))
    }
    count(stream.flush(now: now + 1))
    return delivered
  }

  /// SensorServer WebSocket text messages through parsing, sample making, clock continuity and
  /// sample reordering, as the client does with each message; `reconnectEvery` other messages
  /// (0: never) start a new connection, as after a reboot of the phone.
  public static func sensorServer(messages: [[UInt8]], reconnectEvery: UInt8) -> Int {
    var reorder = SampleReorderBuffer(holdTime: 0.05, maximumDelay: 0.2, clock: .phone)
    var clock = SensorServerClockContinuity(offset: 0, needsCheck: true)
    var now = 0.0
    var delivered = 0
    for (index, message) in messages.enumerated() {
      now += messageInterval
      if reconnectEvery > 0, index % Int(reconnectEvery) == 0 { clock.needsCheck = true }
      let text = String(decoding: message, as: UTF8.self)
      let defaultType: String? = index % 2 == 0 ? nil : SensorServerReading.fullType("gyroscope")
      if let reading = try? SensorServerReading(text: text, defaultType: defaultType),
        var sample = try? reading.sample()
      {
        sample.timestamp = clock.adjust(sample.timestamp, after: reorder.lastReleasedTimestamp)
        reorder.insert([sample], now: now)
      }
      for case .sample in reorder.releaseEvents(now: now, source: "fuzz") { delivered += 1 }
    }
    delivered += reorder.release(now: now + 1, flushAll: true).count
    return delivered
  }

  /// A phyphox `/config` answer, then `/get` answers, through buffer discovery, polling (with the
  /// request each poll would send) and sample reordering, as the client does.
  public static func phyphox(configuration: [UInt8], answers: [[UInt8]]) -> Int {
    var groups = PhyphoxBufferGroup.standard
    if let document = try? PhoneJSON.parse(configuration) {
      let discovered = PhyphoxBufferGroup.discover(in: document).groups
      if !discovered.isEmpty { groups = discovered }
    }
    var poller = PhyphoxPoller(groups: groups)
    var reorder = SampleReorderBuffer(holdTime: 0.05, maximumDelay: 0.2, clock: .phone)
    var now = 0.0
    var delivered = 0
    var requestBytes = 0
    for answer in answers {
      now += messageInterval
      requestBytes &+= poller.requestPath().utf8.count
      guard let document = try? PhoneJSON.parse(answer), let outcome = try? poller.consume(document)
      else {
        continue
      }
      if outcome.sessionChanged {
        poller = PhyphoxPoller(
          groups: groups, timeOffset: poller.timeOffset, lastTimestamp: poller.lastTimestamp)
      }
      reorder.insert(outcome.samples, now: now)
      for case .sample in reorder.releaseEvents(now: now, source: "fuzz") { delivered += 1 }
    }
    delivered += reorder.release(now: now + 1, flushAll: true).count
    return delivered &+ (requestBytes & 1)
  }
}
