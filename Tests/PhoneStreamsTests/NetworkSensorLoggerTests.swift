// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import PhoneStreamDecoding
@testable import PhoneStreams

/// The Sensor Logger HTTP push receiver, over loopback.
final class NetworkSensorLoggerTests: XCTestCase {
  /// Epoch nanoseconds of the first reading (beyond 2⁵³, as the app sends them).
  static let baseTime: Int64 = 1_698_501_144_401_773_000

  /// Builds a push body in the documented shape.
  static func body(
    messageID: Int, session: String = "session-1",
    readings: [(name: String, offsetMs: Int, values: String)],
    accuracy: Bool = false
  ) -> String {
    let payload = readings.map { reading -> String in
      let time = baseTime + Int64(reading.offsetMs) * 1_000_000
      let extra = accuracy ? ",\"accuracy\":3" : ""
      return
        "{\"name\":\"\(reading.name)\",\"time\":\(time)\(extra),\"values\":{\(reading.values)}}"
    }
    return
      "{\"messageId\":\(messageID),\"sessionId\":\"\(session)\",\"deviceId\":\"phone\",\"payload\":["
      + payload.joined(separator: ",") + "]}"
  }

  static func xyz(_ x: Double, _ y: Double, _ z: Double) -> String {
    "\"x\":\(x),\"y\":\(y),\"z\":\(z)"
  }

  private func makeReceiver(platform: SensorLoggerReceiver.Platform) -> SensorLoggerReceiver {
    SensorLoggerReceiver(
      configuration: .init(
        bindAddress: "127.0.0.1", port: 0, platform: platform, messageReorderWindow: 1.0,
        sampleHoldTime: 0.05, maximumSampleDelay: 0.1, clock: .phone))
  }

  func testOutOfOrderIOSMessagesArriveInOrderAsSpecificForce() throws {
    let receiver = makeReceiver(platform: .automatic)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let port = try XCTUnwrap(receiver.listeningPort)
    let client = try NetworkTestHTTPClient(port: port)

    // iOS, not standardised: the uncalibrated accelerometer is in g with Core Motion's sign, so a
    // phone lying face up reads (0, 0, −1) g = specific force (0, 0, +9.80665) m/s².
    func message(_ id: Int) -> String {
      let t = id * 100
      return Self.body(
        messageID: id,
        readings: [
          // Deliberately unsorted inside the batch.
          ("gyroscopeuncalibrated", t + 50, Self.xyz(0.01, 0.02, Double(id))),
          ("accelerometeruncalibrated", t + 50, Self.xyz(0, 0, -1)),
          ("accelerometeruncalibrated", t, Self.xyz(0.1, -0.2, -1)),
          ("gyroscopeuncalibrated", t, Self.xyz(0.01, 0.02, Double(id))),
          ("gyroscope", t, Self.xyz(9, 9, 9)),  // calibrated: ignored while raw is streamed
          ("barometer", t, "\"relativeAltitude\":0,\"pressure\":1013.25"),
          ("location", t, "\"latitude\":1,\"longitude\":2"),
        ])
    }
    for id in [1, 0, 2] {
      let response = try client.post(message(id))
      XCTAssertEqual(response.status, 200)
    }
    XCTAssertTrue(
      collector.wait { $0.samples.count >= 6 }, "got \(collector.samples.count) samples")
    let samples = collector.samples
    XCTAssertEqual(samples.count, 6)
    XCTAssertTrue(collector.failures.isEmpty, "\(collector.failures)")
    // In timestamp order, readings at equal times merged into one sample.
    let times = samples.map(\.timestamp)
    XCTAssertEqual(times, times.sorted())
    let t0 = phoneStreamSeconds(nanoseconds: Self.baseTime)
    for (index, sample) in samples.enumerated() {
      // Epoch seconds as a Double resolve ~0.24 µs at 1.7e9 s.
      XCTAssertEqual(sample.timestamp, t0 + Double(index) * 0.05, accuracy: 1e-6)
      XCTAssertEqual(sample.gyroscope?.z, Double(index / 2))
    }
    assertNetworkVectorsClose(
      samples[0].accelerometer, SIMD3(-0.980665, 1.96133, 9.80665), tolerance: 1e-9)
    assertNetworkVectorsClose(samples[1].accelerometer, SIMD3(0, 0, 9.80665), tolerance: 1e-9)
    XCTAssertEqual(try XCTUnwrap(samples[0].pressure), 101.325, accuracy: 1e-9)
    XCTAssertNil(samples[1].pressure)
  }

  func testDefaultClockMapsPhoneTimeToThisMachinesBootClock() throws {
    let receiver = SensorLoggerReceiver(
      configuration: .init(
        bindAddress: "127.0.0.1", port: 0, platform: .android, sampleHoldTime: 0.05,
        maximumSampleDelay: 0.05))
    XCTAssertEqual(receiver.configuration.clock, .receiverBoot)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let client = try NetworkTestHTTPClient(port: try XCTUnwrap(receiver.listeningPort))
    let body = Self.body(
      messageID: 0,
      readings: [0, 100, 200].map { ("gyroscope", $0, Self.xyz(0, 0, 1)) })
    let before = BootClock.now
    XCTAssertEqual(try client.post(body).status, 200)
    XCTAssertTrue(collector.wait { $0.samples.count >= 3 })
    let after = BootClock.now
    let times = collector.samples.map(\.timestamp)
    // The newest reading is stamped with its arrival time; intervals are the phone's (the epoch
    // times resolve ~0.24 µs as Doubles).
    XCTAssertGreaterThanOrEqual(times[2], before)
    XCTAssertLessThanOrEqual(times[2], after)
    XCTAssertEqual(times[1] - times[0], 0.1, accuracy: 1e-6)
    XCTAssertEqual(times[2] - times[1], 0.1, accuracy: 1e-6)
  }

  func testClockMappingOnlyMovesForward() {
    var mapping = StreamClockMapping(clock: .receiverBoot)
    mapping.observe(newestStreamTime: 1_000, arrival: 50)
    XCTAssertEqual(mapping.map(1_000), 50)
    mapping.observe(newestStreamTime: 1_001, arrival: 50.5)  // less delay: offset kept
    XCTAssertEqual(mapping.map(1_001), 51)
    mapping.observe(newestStreamTime: 1_002, arrival: 53.5)  // 1.5 s more delay: within threshold
    XCTAssertEqual(mapping.map(1_002), 52)
    mapping.observe(newestStreamTime: 1_003, arrival: 60)  // a pause: catch up
    XCTAssertEqual(mapping.map(1_003), 60)
    var phone = StreamClockMapping(clock: .phone)
    phone.observe(newestStreamTime: 1_000, arrival: 50)
    XCTAssertEqual(phone.map(1_000), 1_000)
  }

  func testAndroidUserAccelerationPlusGravityKeepsAndroidSign() throws {
    let receiver = makeReceiver(platform: .automatic)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let client = try NetworkTestHTTPClient(port: try XCTUnwrap(receiver.listeningPort))

    // Android: flat on a table gravity reads +9.81 on z; user acceleration 0.5 m/s² up.
    let body = Self.body(
      messageID: 0,
      readings: [
        ("accelerometer", 0, Self.xyz(0, 0, 0.5)),
        ("gravity", 0, Self.xyz(0, 0, 9.81)),
        ("magnetometer", 10, Self.xyz(20, -5, -40)),
        ("accelerometer", 20, Self.xyz(1, 0, 0)),
        ("gravity", 20, Self.xyz(0, 0, 9.81)),
      ], accuracy: true)
    XCTAssertEqual(try client.post(body).status, 200)
    XCTAssertTrue(collector.wait { $0.samples.count >= 3 })
    let samples = collector.samples
    XCTAssertEqual(samples.count, 3)
    assertNetworkVectorsClose(samples[0].accelerometer, SIMD3(0, 0, 10.31), tolerance: 1e-12)
    assertNetworkVectorsClose(samples[1].magnetometer, SIMD3(20, -5, -40), tolerance: 0)
    assertNetworkVectorsClose(samples[2].accelerometer, SIMD3(1, 0, 9.81), tolerance: 1e-12)
  }

  func testIOSGravityIsRecognisedFromOrientation() throws {
    // iOS flat face up: Core Motion gravity (0, 0, −9.81); the attitude quaternion is the identity
    // (device z up), so the signs disagree → iOS convention → specific force = −(user + gravity).
    let batch = try SensorLoggerBatch(
      body: Array(
        Self.body(
          messageID: 0,
          readings: [
            (
              "orientation", 0,
              "\"qx\":0,\"qy\":0,\"qz\":0.3,\"qw\":0.954,\"roll\":0,\"pitch\":0,\"yaw\":0.6"
            ),
            ("gravity", 0, Self.xyz(0, 0, -9.81)),
            ("accelerometer", 0, Self.xyz(0, 0, -0.2)),
          ]
        ).utf8))
    XCTAssertEqual(SensorLoggerConverter.detectConvention(in: batch), .iOS)
    var converter = SensorLoggerConverter(convention: nil)
    let (samples, failures) = converter.convert(batch)
    XCTAssertTrue(failures.isEmpty)
    XCTAssertEqual(samples.count, 1)
    assertNetworkVectorsClose(samples.first?.accelerometer, SIMD3(0, 0, 10.01), tolerance: 1e-12)
  }

  func testUndecidablePlatformWithholdsAccelerometerWithNotice() throws {
    let batch = try SensorLoggerBatch(
      body: Array(
        Self.body(
          messageID: 0,
          readings: [
            ("gravity", 0, Self.xyz(0, 0, 9.81)), ("accelerometer", 0, Self.xyz(0, 0, 0)),
            ("gyroscope", 0, Self.xyz(0.1, 0, 0)),
          ]
        ).utf8))
    var converter = SensorLoggerConverter(convention: nil)
    let (samples, failures) = converter.convert(batch)
    XCTAssertEqual(samples.count, 1)
    XCTAssertNotNil(samples.first?.gyroscope)
    XCTAssertEqual(failures.count, 1)
    XCTAssertTrue(failures.first?.message.contains("platform=ios") ?? false, "\(failures)")
    // Told explicitly, the same batch yields the accelerometer.
    var android = SensorLoggerConverter(convention: .android)
    assertNetworkVectorsClose(
      android.convert(batch).samples.first?.accelerometer, SIMD3(0, 0, 9.81), tolerance: 0)
  }

  func testStreamWithoutGyroscopeSaysThereIsNoDeviceMotion() throws {
    // The receiver offers every sensor, so device motion started on a phone that streams no
    // gyroscope and never updated, with no failure to say why.
    func batch(_ id: Int, gyroscope: Bool = false) throws -> SensorLoggerBatch {
      var readings = [("totalacceleration", id * 100, Self.xyz(0, 0, 9.81))]
      if gyroscope { readings.append(("gyroscope", id * 100, Self.xyz(0.1, 0, 0))) }
      return try SensorLoggerBatch(
        body: Array(Self.body(messageID: id, readings: readings, accuracy: true).utf8))
    }
    // SensorLoggerConverter.missingGyroscopeBatches, spelled out so that this test builds, and
    // fails, against a converter without the notice.
    let grace = 3
    var converter = SensorLoggerConverter(convention: nil)
    var notices: [SourceFailure] = []
    for id in 0..<(grace + 5) {
      let (samples, failures) = converter.convert(try batch(id))
      XCTAssertEqual(samples.count, 1, "the accelerometer still streams")
      notices += failures
      if id + 1 < grace {
        XCTAssertTrue(notices.isEmpty, "a gyroscope may miss the first batch: \(notices)")
      }
    }
    XCTAssertEqual(notices.count, 1, "once per recording: \(notices)")
    XCTAssertTrue(notices.first?.message.contains("no gyroscope") ?? false, "\(notices)")
    XCTAssertEqual(notices.first?.isFatal, false)
    // A gyroscope that starts one batch late is not reported.
    var late = SensorLoggerConverter(convention: nil)
    XCTAssertTrue(late.convert(try batch(0)).failures.isEmpty)
    for id in 1..<(grace + 5) {
      XCTAssertTrue(late.convert(try batch(id, gyroscope: id % 2 == 1)).failures.isEmpty)
    }
  }

  /// After the "no gyroscope" notice the receiver offers no gyroscope, so that device motion
  /// reads as not available: it kept offering every sensor. Dropped before the notice reaches
  /// subscribers, and offered again once a gyroscope streams.
  func testReceiverStopsOfferingAGyroscopeTheRecordingLacks() throws {
    let receiver = makeReceiver(platform: .android)
    XCTAssertTrue(receiver.availableSensors.contains(.gyroscope), "offered before it is known")
    let collector = NetworkEventCollector()
    let atNotice = Locked<SensorSet?>(nil)
    let subscription = receiver.subscribe(requestedSampleRate: 100) { [weak receiver] event in
      if case .failure(let failure) = event, failure.message.contains("no gyroscope") {
        atNotice.withLock { $0 = receiver?.availableSensors }
      }
      collector.handler(event)
    }
    defer { subscription.cancel() }
    let client = try NetworkTestHTTPClient(port: try XCTUnwrap(receiver.listeningPort))
    func post(_ id: Int, gyroscope: Bool = false) throws {
      var readings = [("totalacceleration", id * 100, Self.xyz(0, 0, 9.81))]
      if gyroscope { readings.append(("gyroscope", id * 100, Self.xyz(0.1, 0, 0))) }
      XCTAssertEqual(try client.post(Self.body(messageID: id, readings: readings)).status, 200)
    }
    for id in 0..<(SensorLoggerConverter.missingGyroscopeBatches + 1) { try post(id) }
    XCTAssertTrue(
      collector.wait(timeout: 20) { $0.failures.contains { $0.message.contains("no gyroscope") } },
      "\(collector.all)")
    XCTAssertEqual(atNotice.withLock { $0 }, [.accelerometer, .magnetometer, .barometer])
    XCTAssertEqual(receiver.availableSensors, [.accelerometer, .magnetometer, .barometer])
    // The app's Gyroscope turned on: offered again.
    try post(SensorLoggerConverter.missingGyroscopeBatches + 1, gyroscope: true)
    XCTAssertTrue(
      collector.wait(timeout: 20) { $0.samples.contains { $0.gyroscope != nil } },
      "\(collector.all)")
    XCTAssertTrue(receiver.availableSensors.contains(.gyroscope))
  }

  /// A recording of the magnetometer and the barometer only: the "no gyroscope" notice needed
  /// accelerometer readings, so accelerometer and device-motion updates started on it waited in
  /// silence, the accelerometer and the gyroscope still offered. Both leave before one notice; a
  /// gyroscope-only recording loses the accelerometer.
  func testRecordingWithoutAccelerometerOrGyroscopeTakesThemOut() throws {
    let receiver = makeReceiver(platform: .android)
    let collector = NetworkEventCollector()
    let atNotice = Locked<SensorSet?>(nil)
    let subscription = receiver.subscribe(requestedSampleRate: 100) { [weak receiver] event in
      if case .failure = event { atNotice.withLock { $0 = $0 ?? receiver?.availableSensors } }
      collector.handler(event)
    }
    defer { subscription.cancel() }
    let client = try NetworkTestHTTPClient(port: try XCTUnwrap(receiver.listeningPort))
    for id in 0..<(SensorLoggerConverter.missingGyroscopeBatches + 1) {
      let readings = [
        ("magnetometer", id * 100, Self.xyz(20, 0, -40)),
        ("barometer", id * 100, "\"pressure\":1013.25,\"relativeAltitude\":0"),
      ]
      XCTAssertEqual(try client.post(Self.body(messageID: id, readings: readings)).status, 200)
    }
    XCTAssertTrue(collector.wait(timeout: 20) { !$0.failures.isEmpty }, "\(collector.all)")
    let notice = try XCTUnwrap(collector.failures.first)
    XCTAssertTrue(
      notice.message.contains("neither an accelerometer nor a gyroscope"), notice.message)
    XCTAssertFalse(notice.isFatal, "the magnetometer and the barometer still stream")
    XCTAssertEqual(atNotice.withLock { $0 }, [.magnetometer, .barometer])
    XCTAssertEqual(receiver.availableSensors, [.magnetometer, .barometer])
    XCTAssertTrue(collector.samples.contains { $0.magnetometer != nil }, "\(collector.all)")

    var converter = SensorLoggerConverter(convention: .android)
    var notices: [SourceFailure] = []
    for id in 0..<(SensorLoggerConverter.missingGyroscopeBatches + 3) {
      let body = Self.body(messageID: id, readings: [("gyroscope", id * 100, Self.xyz(0.1, 0, 0))])
      notices += converter.convert(try SensorLoggerBatch(body: Array(body.utf8))).failures
    }
    XCTAssertEqual(notices.count, 1, "once per recording: \(notices)")
    XCTAssertTrue(notices.first?.message.contains("no accelerometer") ?? false, "\(notices)")
    XCTAssertEqual(converter.lackingSensors, .accelerometer)
  }

  func testTimeKeepsNanosecondPrecisionBeyondTwoToThe53() throws {
    let batch = try SensorLoggerBatch(
      body: Array(
        "{\"messageId\":3,\"payload\":[{\"name\":\"gyroscope\",\"time\":1698501144401773001,\"values\":{\"x\":1,\"y\":2,\"z\":3}}]}"
          .utf8))
    XCTAssertEqual(batch.readings.first?.time, 1_698_501_144_401_773_001)
    XCTAssertEqual(batch.messageID, 3)
  }

  func testMalformedBodiesAreReportedAndAnswered400() throws {
    let receiver = makeReceiver(platform: .android)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let client = try NetworkTestHTTPClient(port: try XCTUnwrap(receiver.listeningPort))

    XCTAssertEqual(try client.post("this is not json").status, 400)
    XCTAssertEqual(try client.post("{\"messageId\":0}").status, 400)
    XCTAssertEqual(
      try client.post(
        "{\"payload\":[{\"name\":\"gyroscope\",\"time\":5,\"values\":{\"x\":\"a\"}}]}"
      ).status, 400)
    // The receiver keeps working afterwards.
    let good = Self.body(messageID: 0, readings: [("gyroscope", 0, Self.xyz(1, 2, 3))])
    XCTAssertEqual(try client.post(good).status, 200)
    XCTAssertTrue(collector.wait { $0.samples.count >= 1 && $0.failures.count >= 3 })
    let messages = collector.failures.map(\.message)
    XCTAssertTrue(messages[0].contains("not JSON"), messages[0])
    XCTAssertTrue(messages[1].contains("no \"payload\""), messages[1])
    XCTAssertTrue(messages[2].contains("x, y and z"), messages[2])
    XCTAssertTrue(collector.failures.allSatisfy { $0.kind == .malformedData })
    XCTAssertTrue(collector.failures.allSatisfy { !$0.isFatal }, "one bad POST is advisory")
  }

  func testTestPushAndChunkedBodiesAreAccepted() throws {
    let receiver = makeReceiver(platform: .android)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let client = try NetworkTestHTTPClient(port: try XCTUnwrap(receiver.listeningPort))
    // The app's "Tap to Test Pushing" payload.
    XCTAssertEqual(
      try client.post(
        "{\"messageId\":0,\"payload\":[{\"name\":\"test\",\"time\":1,\"values\":{}}]}"
      ).status, 200)
    let body = Array(
      Self.body(
        messageID: 0, session: "s2", readings: [("totalacceleration", 0, Self.xyz(0, 9.8, 0))]
      ).utf8)
    let split = body.count / 2
    var request = Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
    request += Array(String(split, radix: 16).utf8) + [13, 10] + body[..<split] + [13, 10]
    request +=
      Array(String(body.count - split, radix: 16).utf8) + [13, 10] + body[split...] + [13, 10]
    request += Array("0\r\n\r\n".utf8)
    XCTAssertEqual(try client.exchange(request).status, 200)
    XCTAssertTrue(collector.wait { $0.samples.count >= 1 })
    assertNetworkVectorsClose(
      collector.samples.first?.accelerometer, SIMD3(0, 9.8, 0), tolerance: 0)
  }

  func testExpectHeaderAndKeepAliveRequests() throws {
    let receiver = makeReceiver(platform: .android)
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let client = try NetworkTestHTTPClient(port: try XCTUnwrap(receiver.listeningPort))
    let body = Array(Self.body(messageID: 0, readings: [("gyroscope", 0, Self.xyz(1, 2, 3))]).utf8)
    // No interim 100 is sent (Hummingbird does not); a client that asked for one sends the body
    // after a short wait, as curl does, and gets the final answer.
    let head =
      "POST /push HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n"
    XCTAssertEqual(try client.exchange(Array(head.utf8) + body).status, 200)
    // The same connection serves the next message, and a GET explains what the port is.
    let next = Self.body(messageID: 1, readings: [("gyroscope", 10, Self.xyz(4, 5, 6))])
    XCTAssertEqual(try client.post(next).status, 200)
    let page = try client.exchange(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
    XCTAssertEqual(page.status, 200)
    XCTAssertTrue(String(decoding: page.body, as: UTF8.self).contains("Sensor Logger receiver"))
    XCTAssertTrue(collector.wait { $0.samples.count >= 2 })
    XCTAssertEqual(collector.samples.compactMap(\.gyroscope?.x), [1, 4])
  }

  func testCancelClosesTheListenerSoThePortIsReusable() throws {
    let receiver = makeReceiver(platform: .android)
    let first = receiver.subscribe(requestedSampleRate: 100) { _ in }
    let second = receiver.subscribe(requestedSampleRate: 100) { _ in }
    let port = try XCTUnwrap(receiver.listeningPort)
    first.cancel()
    XCTAssertEqual(receiver.listeningPort, port, "one subscriber left: still listening")
    XCTAssertNoThrow(try NetworkTestHTTPClient(port: port))
    second.cancel()
    XCTAssertNil(receiver.listeningPort)
    XCTAssertThrowsError(try NetworkTestSocket.connect(port: port))
    // Another receiver can take the same port at once.
    let again = SensorLoggerReceiver(
      configuration: .init(bindAddress: "127.0.0.1", port: port, platform: .android))
    let collector = NetworkEventCollector()
    let subscription = again.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertEqual(again.listeningPort, port)
    XCTAssertTrue(collector.failures.isEmpty)
  }

  func testBusyPortIsReportedAsBusy() throws {
    let (holder, port) = try NetworkTestSocket.listen()
    defer { holder.close() }
    let receiver = SensorLoggerReceiver(
      configuration: .init(bindAddress: "127.0.0.1", port: port))
    let collector = NetworkEventCollector()
    let subscription = receiver.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait { !$0.failures.isEmpty })
    XCTAssertEqual(collector.failures.first?.kind, .busy)
  }
}
