// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import PhoneStreamDecoding
@testable import PhoneStreams

/// What a hostile or odd `/config` can make the client poll. Every input it listed went into
/// every `/get`, bounded only by the size of the `/config` answer read (2 MiB): with a thousand
/// accelerometer inputs and a gyroscope input whose names have 10 000 bytes, the first poll's
/// URL had 75 572 bytes, which the stub answered HTTP 400 or not within 5 s, so no sample came;
/// with 5 000 inputs, 235 572 bytes (measured 2026-12-01). The client now polls one input per
/// sensor it reads, with names of at most `PhyphoxBufferGroup.maximumNameLength` bytes.
final class NetworkPhyphoxConfigBoundTests: XCTestCase {
  /// An accelerometer input numbered `index`, its buffers named after the number.
  private static func accelerometerInput(_ index: Int) -> String {
    "{\"source\":\"accelerometer\",\"outputs\":[{\"x\":\"accX\(index)\"},{\"y\":\"accY\(index)\"},"
      + "{\"z\":\"accZ\(index)\"},{\"t\":\"acc_time\(index)\"}]}"
  }

  /// A gyroscope input whose buffers have names of 10 000 bytes.
  private static let longNamedGyroscope: String = {
    let long = String(repeating: "g", count: 10_000)
    return "{\"source\":\"gyroscope\",\"outputs\":[{\"x\":\"x\(long)\"},{\"y\":\"y\(long)\"},"
      + "{\"z\":\"z\(long)\"},{\"t\":\"t\(long)\"}]}"
  }()

  private static func config(accelerometers: Int) -> String {
    let inputs = (0..<accelerometers).map(accelerometerInput) + [longNamedGyroscope]
    return "{\"inputs\":[\(inputs.joined(separator: ","))]}"
  }

  func testDiscoveryKeepsTheFirstUsableInputOfEachSensor() throws {
    let config = Self.config(accelerometers: 5_000)
    let (groups, notes) = PhyphoxBufferGroup.discover(in: try PhoneJSON.parse(Array(config.utf8)))
    XCTAssertEqual(
      groups.map(\.time), ["acc_time0"], "one group per sensor; the gyroscope's names are too long")
    XCTAssertEqual(
      notes.first,
      "the phyphox experiment's gyroscope input names a buffer longer than 64 bytes, and is not "
        + "read")
    // The experiment lists a gyroscope input: the note on what is lacking says none is readable,
    // not that there is none.
    XCTAssertTrue(
      notes.dropFirst().first?.hasPrefix("the phyphox experiment has no readable gyroscope")
        ?? false, "\(notes)")
    XCTAssertEqual(PhyphoxPoller(groups: groups).requestPath(), "/get?acc_time0&accX0&accY0&accZ0")

    // An input skipped for a long name leaves the place to a later one of the same sensor, which
    // has nothing to report.
    let usable =
      "{\"source\":\"gyroscope\",\"outputs\":[{\"x\":\"gx\"},{\"y\":\"gy\"},{\"z\":\"gz\"},"
      + "{\"t\":\"gt\"}]}"
    let both = "{\"inputs\":[\(Self.longNamedGyroscope),\(usable)]}"
    let found = PhyphoxBufferGroup.discover(in: try PhoneJSON.parse(Array(both.utf8)))
    XCTAssertEqual(found.groups.map(\.time), ["gt"])
    XCTAssertFalse(found.notes.contains { $0.contains("longer than") }, "\(found.notes)")
  }

  /// Against the stub: the polls ask for the first accelerometer input only, and samples come.
  func testPollsOfAConfigListingAThousandInputsStayShort() throws {
    let stub = try NetworkPhyphoxStubServer(config: Self.config(accelerometers: 1_000))
    defer { stub.stop() }
    stub.append(["acc_time0": [1.0], "accX0": [0.1], "accY0": [-0.2], "accZ0": [9.81]])
    let client = PhyphoxClient(
      configuration: .init(
        host: "127.0.0.1", port: stub.port, pollInterval: 0.01, requestTimeout: 5,
        sampleHoldTime: 0.01, maximumSampleDelay: 0.05, clock: .phone))
    let collector = NetworkEventCollector()
    let subscription = client.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    XCTAssertTrue(
      collector.wait(timeout: 30) { !$0.samples.isEmpty }, "\(collector.failures.prefix(3))")
    XCTAssertTrue(networkEventually(timeout: 30) { client.completedPolls >= 3 })
    subscription.cancel()
    XCTAssertEqual(collector.samples.first?.accelerometer?.z, 9.81)
    let polls = stub.requests.filter { $0.hasPrefix("/get?") }
    let longest = polls.map(\.utf8.count).max() ?? 0
    // The longest are the threshold polls, "/get?acc_time0=1.0&accX0=1.0%7Cacc_time0&…".
    XCTAssertLessThanOrEqual(longest, 200, "longest /get URL: \(longest) bytes")
    XCTAssertTrue(
      collector.failures.contains { $0.message.contains("gyroscope input names a buffer longer") },
      "\(collector.failures)")
  }

  /// A pressure input without an "x" output takes its first value output in the experiment's
  /// order. It took whichever a dictionary listed first, which could change from run to run.
  func testAPressureInputWithoutAnXTakesItsFirstListedValue() throws {
    let config =
      "{\"inputs\":[{\"source\":\"pressure\",\"outputs\":[{\"t\":\"p_time\"},"
      + "{\"accuracy\":\"p_acc\"},{\"value\":\"p_first\"},{\"alt\":\"p_second\"},"
      + "{\"b\":\"p_third\"}]}]}"
    for _ in 0..<20 {
      let (groups, _) = PhyphoxBufferGroup.discover(in: try PhoneJSON.parse(Array(config.utf8)))
      XCTAssertEqual(groups.first?.components, ["p_first"])
    }
  }
}
