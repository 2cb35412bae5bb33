// SPDX-License-Identifier: Apache-2.0

import Foundation
import Hummingbird
import HummingbirdWebSocket
import MotionSensors
import XCTest

@testable import PhoneStreamDecoding
@testable import PhoneStreams

/// The SensorServer WebSocket client against a loopback server.
final class NetworkSensorServerTests: XCTestCase {
  static func message(_ type: String, _ timestamp: Int64, _ values: [Double]) -> String {
    "{\"type\":\"android.sensor.\(type)\",\"accuracy\":3,\"timestamp\":\(timestamp),\"values\":["
      + values.map { "\($0)" }.joined(separator: ",") + "]}"
  }

  /// Waits (cancellably, up to 10 s) until `gate` opens.
  static func wait(for gate: Locked<Bool>) async throws {
    for _ in 0..<1_000 where !gate.withLock({ $0 }) {
      try await Task.sleep(nanoseconds: 10_000_000)
    }
  }

  /// A client of `configuration` with a collector subscribed to it; the caller cancels the
  /// subscription (`defer`), so that the connection ends with its test or loop pass.
  private func subscribedClient(
    _ configuration: SensorServerClient.Configuration
  ) -> (
    client: SensorServerClient, collector: NetworkEventCollector, subscription: SourceSubscription
  ) {
    let client = SensorServerClient(configuration: configuration)
    let collector = NetworkEventCollector()
    return (client, collector, client.subscribe(requestedSampleRate: 50, collector.handler))
  }

  func testFramesBecomeOrderedSamplesAndCloseCodesAreExplained() throws {
    let base: Int64 = 3_925_657_519_043_709  // boot-relative ns (~45 days of uptime)
    let closeGate = Locked(false)
    let phone = try NetworkTestPhone { outbound, _ in
      try await outbound.write(
        .text(
          Self.message("accelerometer", base + 20_000_000, [0.31892395, -0.97802734, 10.049896])))
      // Earlier than the accelerometer event: must come out first.
      try await outbound.write(.text(Self.message("gyroscope", base, [0.01, -0.02, 0.03])))
      try await outbound.write(
        .text(Self.message("magnetic_field", base + 10_000_000, [22.5, -3.25, -41])))
      // A pressure reading the client did not ask for by default: it is still mapped.
      try await outbound.write(.text(Self.message("pressure", base + 30_000_000, [1013.25])))
      try await Self.wait(for: closeGate)
      try await outbound.close(.unknown(4005), reason: "bye")
    }
    defer { phone.stop() }
    let (client, collector, subscription) = subscribedClient(
      .init(
        host: "127.0.0.1", port: phone.port, reconnectDelay: 5, sampleHoldTime: 0.05,
        maximumSampleDelay: 0.1, clock: .phone))
    XCTAssertEqual(client.availableSensors, .nineAxis)
    defer { subscription.cancel() }

    XCTAssertTrue(collector.wait(timeout: 5) { $0.samples.count >= 4 }, "got \(collector.all)")
    XCTAssertEqual(
      phone.requestTargets.first,
      "/sensors/connect?types=%5B%22android.sensor.accelerometer%22%2C%22android.sensor.gyroscope%22%2C%22android.sensor.magnetic_field%22%5D"
    )
    let samples = collector.samples
    XCTAssertEqual(samples.map(\.timestamp), samples.map(\.timestamp).sorted())
    XCTAssertEqual(samples[0].timestamp, 3_925_657.519_043_709, accuracy: 1e-9)
    assertNetworkVectorsClose(samples[0].gyroscope, SIMD3(0.01, -0.02, 0.03), tolerance: 0)
    assertNetworkVectorsClose(samples[1].magnetometer, SIMD3(22.5, -3.25, -41), tolerance: 0)
    assertNetworkVectorsClose(
      samples[2].accelerometer, SIMD3(0.31892395, -0.97802734, 10.049896), tolerance: 0)
    XCTAssertEqual(try XCTUnwrap(samples[3].pressure), 101.325, accuracy: 1e-12)
    XCTAssertTrue(client.isConnected)

    closeGate.withLock { $0 = true }
    XCTAssertTrue(collector.wait(timeout: 5) { !$0.failures.isEmpty })
    let failure = try XCTUnwrap(collector.failures.first)
    XCTAssertEqual(failure.kind, .disconnected)
    XCTAssertTrue(failure.message.contains("closed by the user [4005] (bye)"), failure.message)
  }

  func testMalformedMessagesAreReportedAndTheStreamContinues() throws {
    let phone = try NetworkTestPhone { outbound, _ in
      try await outbound.write(.text("not json"))
      try await outbound.write(
        .text("{\"type\":\"android.sensor.gyroscope\",\"timestamp\":5,\"values\":[1,2]}"))
      try await outbound.write(
        .text("{\"type\":\"android.sensor.gyroscope\",\"values\":[1,2,3]}"))
      try await outbound.write(
        .text("{\"type\":\"android.sensor.light\",\"timestamp\":7,\"values\":[300]}"))  // ignored
      try await outbound.write(.text(Self.message("gyroscope", 9, [1, 2, 3])))
      try await Task.sleep(nanoseconds: 10_000_000_000)
    }
    defer { phone.stop() }
    let (_, collector, subscription) = subscribedClient(
      .init(host: "127.0.0.1", port: phone.port, reconnectDelay: 5))
    defer { subscription.cancel() }
    XCTAssertTrue(
      collector.wait(timeout: 5) { $0.samples.count >= 1 && $0.failures.count >= 1 },
      "\(collector.all)")
    XCTAssertEqual(collector.samples.count, 1)
    // The first malformed message is reported as it is; the next ones are counted for the
    // summary (SensorServerClient.malformedReportInterval), not reported one by one.
    let messages = collector.failures.map(\.message)
    XCTAssertEqual(messages.count, 1, "\(messages)")
    XCTAssertTrue(messages[0].contains("not a JSON object"), messages[0])
    XCTAssertTrue(collector.failures.allSatisfy { !$0.isFatal }, "one bad message is advisory")
  }

  func testAFloodOfMalformedMessagesIsCountedNotReportedOneByOne() throws {
    let phone = try NetworkTestPhone { outbound, _ in
      for _ in 0..<2_000 { try await outbound.write(.text("{not json")) }
      try await outbound.write(.text(Self.message("gyroscope", 9, [1, 2, 3])))
      try await Task.sleep(nanoseconds: 10_000_000_000)
    }
    defer { phone.stop() }
    let (_, collector, subscription) = subscribedClient(
      .init(host: "127.0.0.1", port: phone.port, reconnectDelay: 5))
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait(timeout: 10) { $0.samples.count >= 1 }, "\(collector.failures)")
    XCTAssertEqual(collector.failures.count, 1, "\(collector.failures.prefix(3))")
    XCTAssertEqual(collector.failures.first?.kind, .malformedData)
  }

  func testMalformedMessagesBeforeGoodOnesAreStillSummarised() throws {
    // A burst of garbage and then good messages only: the count was summarised only when a later
    // malformed message came, so these were counted and never reported.
    let phone = try NetworkTestPhone { outbound, _ in
      for _ in 0..<5 { try await outbound.write(.text("{not json")) }
      for index in 0..<600 {
        try await outbound.write(
          .text(Self.message("gyroscope", 1_000_000_000 + Int64(index) * 50_000_000, [1, 2, 3])))
        try await Task.sleep(nanoseconds: 50_000_000)
      }
    }
    defer { phone.stop() }
    let (_, collector, subscription) = subscribedClient(
      .init(host: "127.0.0.1", port: phone.port, reconnectDelay: 5))
    defer { subscription.cancel() }
    // The summary is due SensorServerClient.malformedReportInterval (10 s) after the first report.
    XCTAssertTrue(
      collector.wait(timeout: 25) { $0.failures.count >= 2 }, "\(collector.failures)")
    let failures = collector.failures
    XCTAssertEqual(failures.count, 2, "\(failures)")
    XCTAssertTrue(
      failures.last?.message.hasPrefix("4 malformed messages since the last report") ?? false,
      "\(failures)")
  }

  func testBadHandshakeIsAFailureNotACrash() throws {
    // An HTTP server that answers the upgrade request with a plain 200.
    let responder = CallbackResponder<BasicRequestContext> { _, _ in Response(status: .ok) }
    let server = try NetworkTestApplication { onRunning in
      Application(
        responder: responder, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: onRunning, logger: NetworkTestApplication.quietLogger)
    }
    defer { server.stop() }
    let (client, collector, subscription) = subscribedClient(
      .init(host: "127.0.0.1", port: server.port, reconnectDelay: 5))
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait(timeout: 5) { !$0.failures.isEmpty })
    XCTAssertEqual(collector.failures[0].kind, .disconnected)
    XCTAssertFalse(client.isConnected)
  }

  func testCancelClosesTheConnection() throws {
    let ended = Locked(false)
    let phone = try NetworkTestPhone { _, _ in
      // Runs until the client closes (the phone reads, so it sees the close).
      do { try await Task.sleep(nanoseconds: 10_000_000_000) } catch {
        ended.withLock { $0 = true }
      }
    }
    defer { phone.stop() }
    let client = SensorServerClient(configuration: .init(host: "127.0.0.1", port: phone.port))
    let subscription = client.subscribe(requestedSampleRate: 50) { _ in }
    XCTAssertTrue(networkEventually(timeout: 5) { client.isConnected })
    subscription.cancel()
    XCTAssertFalse(client.isConnected)
    XCTAssertTrue(
      networkEventually(timeout: 5) { ended.withLock { $0 } }, "the phone saw the close")
  }

  func testReconnectsAfterTheServerGoesAway() throws {
    let phone = try NetworkTestPhone { outbound, index in
      switch index {
      case 0: try await outbound.write(.text(Self.message("gyroscope", 1_000_000_000, [1, 0, 0])))
      case 1: try await outbound.write(.text(Self.message("gyroscope", 2_000_000_000, [2, 0, 0])))
      default:
        // The phone rebooted: its boot clock starts again near zero.
        try await outbound.write(.text(Self.message("gyroscope", 500_000_000, [3, 0, 0])))
        try await outbound.write(.text(Self.message("gyroscope", 600_000_000, [4, 0, 0])))
        try await Task.sleep(nanoseconds: 10_000_000_000)
      }
      try await Task.sleep(nanoseconds: 200_000_000)  // then the app stops
    }
    defer { phone.stop() }
    let (_, collector, subscription) = subscribedClient(
      .init(
        host: "127.0.0.1", port: phone.port, reconnectDelay: 0.05, maximumSampleDelay: 0.05,
        clock: .phone))
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait(timeout: 8) { $0.samples.count >= 4 }, "\(collector.all)")
    XCTAssertGreaterThanOrEqual(collector.failures.count, 2)
    XCTAssertEqual(collector.failures.first?.kind, .disconnected)
    let times = collector.samples.map(\.timestamp)
    XCTAssertEqual(times[0], 1, accuracy: 1e-12)
    XCTAssertEqual(times[1], 2, accuracy: 1e-12)
    // Timestamps keep increasing across the reboot.
    XCTAssertEqual(times[2], 2, accuracy: 1e-12)
    XCTAssertEqual(times[3], 2.1, accuracy: 1e-12)
  }

  func testAMissingSensorIsReportedOnceNotAtEveryReconnection() throws {
    // SensorServer closes the connection at once, with 4001, when a requested sensor is missing
    // (a phone without a magnetometer and the default types). Each of those was reported as a
    // dropped connection, so the same refusal came every reconnection delay.
    let phone = try NetworkTestPhone { outbound, _ in
      try await outbound.close(.unknown(4001), reason: "sensor not found")
    }
    defer { phone.stop() }
    let (_, collector, subscription) = subscribedClient(
      .init(host: "127.0.0.1", port: phone.port, reconnectDelay: 0.05))
    defer { subscription.cancel() }
    // Six attempts take 0.3 s on an idle machine; when each started and shut down an event loop
    // group of its own, 15.6 s on a loaded 2-core CI machine, and once over 20 s (five attempts).
    // The bound only ends a failing run.
    XCTAssertTrue(
      networkEventually(timeout: 90) { phone.requestTargets.count >= 6 }, "\(phone.requestTargets)")
    let failures = collector.failures
    XCTAssertEqual(failures.count, 1, "\(failures)")
    XCTAssertEqual(failures.first?.kind, .disconnected)
    // What it says (testACloseSentWithTheUpgradeAnswerIsRead checks that the close frame is read).
    XCTAssertTrue(
      SensorServerClient.describeClose(code: 4001, reason: "sensor not found").contains("?types="))
  }

  func testACloseSentWithTheUpgradeAnswerIsRead() throws {
    // SensorServer closes at once (4001) when a requested sensor is missing. When the answer, the
    // close frame and the end of the stream were read together, SwiftNIO's HTTP decoder dropped
    // the close frame and the end never reached the WebSocket: the client noticed only when a
    // ping failed ("connection closed"). One client per connection: a refusal is reported once
    // per outage.
    let phone = try NetworkTestPhone { outbound, _ in
      try await outbound.close(.unknown(4001), reason: "sensor not found")
    }
    defer { phone.stop() }
    for connection in 1...20 {
      let (_, collector, subscription) = subscribedClient(
        .init(host: "127.0.0.1", port: phone.port, reconnectDelay: 30, pingInterval: 2))
      defer { subscription.cancel() }
      // The bound only ends a failing run.
      XCTAssertTrue(collector.wait(timeout: 60) { !$0.failures.isEmpty }, "\(connection)")
      let message = collector.failures.first?.message ?? ""
      XCTAssertTrue(message.contains("[4001] (sensor not found)"), "\(connection): \(message)")
    }
  }

  /// The first failure a client reports against `phone` (which must make it report one within
  /// 10 s), the client stopped after it.
  private func firstFailure(from phone: NetworkTestPhone) throws -> SourceFailure {
    let (_, collector, subscription) = subscribedClient(
      .init(host: "127.0.0.1", port: phone.port, reconnectDelay: 5))
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait(timeout: 10) { !$0.failures.isEmpty }, "\(collector.all)")
    return try XCTUnwrap(collector.failures.first)
  }

  func testAMessageOverTheSizeLimitIsReportedAsSuch() throws {
    // A message over SensorServerClient.maximumMessageSize made the WebSocket library close the
    // connection with 1009 by itself, and the report said only "connection closed" (one frame) or
    // showed the library's error (frames of 16 KiB, put together by the library).
    for frameSize in [1 << 20, 1 << 14] {
      let phone = try NetworkTestPhone(maximumFrameSize: frameSize) { outbound, _ in
        try await outbound.writeTextMessage(String(repeating: " ", count: 100 << 10))
        try await Task.sleep(nanoseconds: 10_000_000_000)
      }
      defer { phone.stop() }
      let failure = try firstFailure(from: phone)
      XCTAssertEqual(failure.kind, .disconnected)
      XCTAssertTrue(
        failure.message.contains("a message larger than 64 KiB (close 1009)"),
        "frames of \(frameSize) bytes: \(failure.message)")
    }
  }

  func testAFrameOverAMebibyteIsReportedAsTooLargeOncePerOutage() throws {
    // One frame over the WebSocket library's frame limit (1 MiB then) was refused by SwiftNIO's
    // frame decoder, whose error handler closed the connection before the error reached the
    // library: the report read only "connection closed".
    let size = (1 << 20) + (1 << 14)
    let phone = try NetworkTestPhone(maximumFrameSize: 1 << 22) { outbound, _ in
      try await outbound.writeTextMessage(String(repeating: " ", count: size))
      try await Task.sleep(nanoseconds: 10_000_000_000)
    }
    defer { phone.stop() }
    let (_, collector, subscription) = subscribedClient(
      .init(host: "127.0.0.1", port: phone.port, reconnectDelay: 0.05))
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait(timeout: 20) { !$0.failures.isEmpty }, "\(collector.all)")
    let failure = try XCTUnwrap(collector.failures.first)
    XCTAssertEqual(failure.kind, .disconnected)
    XCTAssertTrue(
      failure.message.contains("a message larger than 64 KiB (close 1009)"), failure.message)
    // Every attempt meets the same message: one report for the outage, as for a refused attempt.
    XCTAssertTrue(
      networkEventually(timeout: 90) { phone.connectionCount >= 4 }, "the client tried again")
    XCTAssertEqual(collector.failures.count, 1, "\(collector.failures)")
  }

  func testFramesThatMakeNoMessageAreReportedAsAProtocolError() throws {
    // A continuation frame with no message before it.
    let phone = try NetworkTestPhone { outbound, _ in
      try await outbound.write(
        .custom(.init(fin: true, opcode: .continuation, data: ByteBuffer(string: "{}"))))
      try await Task.sleep(nanoseconds: 10_000_000_000)
    }
    defer { phone.stop() }
    let failure = try firstFailure(from: phone)
    XCTAssertEqual(failure.kind, .disconnected)
    XCTAssertTrue(
      failure.message.contains("the phone broke the WebSocket protocol (frames; close 1002)"),
      failure.message)
  }

  func testUnreachablePhoneIsReportedAsDisconnected() throws {
    // A port that nobody listens on: bind one, note it, close it.
    let (probe, port) = try NetworkTestSocket.listen()
    probe.close()
    let (_, collector, subscription) = subscribedClient(
      .init(host: "127.0.0.1", port: port, connectTimeout: 0.5, reconnectDelay: 5))
    defer { subscription.cancel() }
    XCTAssertTrue(collector.wait { !$0.failures.isEmpty })
    XCTAssertEqual(collector.failures.first?.kind, .disconnected)
    XCTAssertTrue(collector.failures.first?.message.contains("127.0.0.1") ?? false)
    // In the system's words, not SwiftNIO's list of attempts, each "connection reset (error
    // set): Connection refused)".
    let message = try XCTUnwrap(collector.failures.first?.message)
    XCTAssertTrue(
      message.contains(
        ": cannot connect: Connection refused (errno \(ECONNREFUSED)); reconnecting"),
      message)
  }

  func testPhoneThatNeverAnswersTheUpgradeIsReportedAndRetried() throws {
    // Accepts TCP and reads the upgrade request, but never answers it.
    let phone = try NetworkTestStallingPeer()
    defer { phone.stop() }
    let (client, collector, subscription) = subscribedClient(
      .init(host: "127.0.0.1", port: phone.port, connectTimeout: 0.3, reconnectDelay: 0.05))
    defer { subscription.cancel() }
    XCTAssertTrue(
      collector.wait(timeout: 5) {
        $0.failures.contains { $0.message.contains("no connection within 0.3 s") }
      }, "\(collector.all)")
    XCTAssertEqual(collector.failures.first?.kind, .disconnected)
    XCTAssertTrue(
      networkEventually(timeout: 5) { phone.acceptedCount >= 2 }, "the client tried again")
    XCTAssertFalse(client.isConnected)
  }

  func testAStopClosesAHandshakeInProgressAtOnce() throws {
    // A stop let a handshake in progress run on behind it, up to the connect timeout: the socket
    // to a phone that never answers stayed open that long. The bound only ends a failing run.
    let phone = try NetworkTestStallingPeer()
    defer { phone.stop() }
    let (client, _, subscription) = subscribedClient(
      .init(host: "127.0.0.1", port: phone.port, connectTimeout: 120))
    XCTAssertTrue(networkEventually(timeout: 10) { phone.requestCount == 1 }, "the upgrade asked")
    subscription.cancel()
    XCTAssertTrue(phone.waitForClose(ofConnection: 0, timeout: 60), "closed after the stop")
    XCTAssertFalse(client.isConnected)
  }

  func testStoppingAsThePhoneAnswersPrintsNothingFromSwiftNIO() throws {
    // A stop during the handshake shut the attempt's event loop down to close its socket. When the
    // phone had just answered, the WebSocket library went on with the connection on that loop:
    // SwiftNIO printed "ERROR: Cannot schedule tasks on an EventLoop that has already shut down"
    // on standard error, and the connection outlived the stop (`isConnected` still true). Thirty
    // stops, each as soon as the phone has answered the upgrade.
    let answering = DispatchSemaphore(value: 0)
    let closed = Locked(0)
    let phone = try NetworkTestPhone { outbound, _ in
      // Cancelled when the client's close (or the end of its socket) has been read.
      defer { closed.withLock { $0 += 1 } }
      answering.signal()
      try await outbound.write(.text(Self.message("gyroscope", 1_000_000_000, [1, 0, 0])))
      try await Task.sleep(nanoseconds: 30_000_000_000)
    }
    defer { phone.stop() }
    let standardError = try NetworkStandardErrorCapture()
    for stop in 1...30 {
      let (client, _, subscription) = subscribedClient(.init(host: "127.0.0.1", port: phone.port))
      let answered = answering.wait(timeout: .now() + 10) == .success
      subscription.cancel()
      XCTAssertTrue(answered, "stop \(stop): the phone answered")
      XCTAssertFalse(client.isConnected, "stop \(stop)")
    }
    // The stops do not wait for the connections to close; the bound only ends a failing run.
    XCTAssertTrue(
      networkEventually(timeout: 60) { closed.withLock { $0 } == 30 }, "\(closed) closed")
    // The event loops are shut down after the closes: time to print, if anything would.
    Thread.sleep(forTimeInterval: 0.5)
    let printed = standardError.finish()
    XCTAssertFalse(printed.contains("Cannot schedule tasks"), printed)
  }

  func testAnAnswerAsTheConnectTimeoutPassesPrintsNothingFromSwiftNIO() throws {
    // The connect timeout shut the attempt's event loop down to close the handshake's socket; when
    // the phone's answer was read just then, the library went on with it on that loop (SwiftNIO
    // printed "Cannot schedule tasks on an EventLoop that has already shut down"). The phone
    // answers after 0.15 to 0.25 s, around the 0.2 s timeout, and closes what opens.
    let attempts = Locked(0)
    let router = Router(context: BasicWebSocketRequestContext.self)
    router.ws(
      "/sensors/connect",
      shouldUpgrade: { _, _ in
        let index = attempts.withLock { count -> UInt64 in
          defer { count += 1 }
          return UInt64(count)
        }
        try await Task.sleep(nanoseconds: 150_000_000 + index % 11 * 10_000_000)
        return .upgrade([:])
      }, onUpgrade: { _, _, _ in })
    let phone = try NetworkTestApplication { onRunning in
      Application(
        router: Router(), server: .http1WebSocketUpgrade(webSocketRouter: router),
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: onRunning, logger: NetworkTestApplication.quietLogger)
    }
    defer { phone.stop() }
    let standardError = try NetworkStandardErrorCapture()
    let (_, _, subscription) = subscribedClient(
      .init(host: "127.0.0.1", port: phone.port, connectTimeout: 0.2, reconnectDelay: 0.01))
    // Each attempt takes about 0.2 s; the bound only ends a failing run.
    let tried = networkEventually(timeout: 120) { attempts.withLock { $0 } >= 60 }
    subscription.cancel()
    Thread.sleep(forTimeInterval: 0.5)
    let printed = standardError.finish()
    XCTAssertTrue(tried, "\(attempts.withLock { $0 }) attempts")
    XCTAssertFalse(printed.contains("Cannot schedule tasks"), printed)
  }

  func testNoOtherEndingPrintsFromSwiftNIO() throws {
    // Each way a connection ends, several times over: the phone goes silent (idle timeout), never
    // answers the upgrade (connect timeout), sends a message over the size limit, or closes.
    let silent = try NetworkTestPhone { _, _ in try await Task.sleep(nanoseconds: 30_000_000_000) }
    defer { silent.stop() }
    let closing = try NetworkTestPhone { outbound, _ in
      try await outbound.write(.text(Self.message("gyroscope", 1_000_000_000, [1, 0, 0])))
    }
    defer { closing.stop() }
    let tooLarge = try NetworkTestPhone { outbound, _ in
      try await outbound.writeTextMessage(String(repeating: " ", count: 100 << 10))
      try await Task.sleep(nanoseconds: 30_000_000_000)
    }
    defer { tooLarge.stop() }
    let stalling = try NetworkTestStallingPeer()
    defer { stalling.stop() }
    let standardError = try NetworkStandardErrorCapture()
    let host = "127.0.0.1"
    let subscriptions = [
      subscribedClient(
        .init(host: host, port: silent.port, reconnectDelay: 0.05, idleTimeout: 0.2)),
      subscribedClient(.init(host: host, port: closing.port, reconnectDelay: 0.05)),
      subscribedClient(.init(host: host, port: tooLarge.port, reconnectDelay: 0.05)),
      subscribedClient(
        .init(host: host, port: stalling.port, connectTimeout: 0.2, reconnectDelay: 0.05)),
    ].map(\.subscription)
    // Bounds for a failing run only (each attempt takes well under a second).
    let ended = networkEventually(timeout: 90) {
      silent.connectionCount >= 6 && closing.connectionCount >= 6
        && tooLarge.connectionCount >= 6 && stalling.acceptedCount >= 6
    }
    for subscription in subscriptions { subscription.cancel() }
    Thread.sleep(forTimeInterval: 0.5)
    let printed = standardError.finish()
    XCTAssertTrue(
      ended,
      "connections: \(silent.connectionCount) silent, \(closing.connectionCount) closing, "
        + "\(tooLarge.connectionCount) too large, \(stalling.acceptedCount) stalling")
    XCTAssertFalse(printed.contains("Cannot schedule tasks"), printed)
  }
}
