// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// Wall-clock pacing that wakes once per batch interval must still hand out every sample, once, in
/// order, with the stream's own timestamps, and keep up with the stream's rate (how late a batch is
/// depends on the machine's load, so it is measured by `motion-benchmarks live`, not asserted
/// here).
final class StreamPlayerBatchingTests: XCTestCase {
  func testBatchedRealTimePlaybackDeliversEverySampleInOrder() throws {
    for batchInterval in [0, 0.05] {
      // 2000 samples at 100 Hz from t = 7 s, played 100 times faster than real time: 0.2 s. A
      // player that handed out one sample per wake-up instead of all that are due would take
      // 2000 × 50 ms = 100 s.
      let samples = (0..<2000).map { index in
        MotionSample(timestamp: 7 + Double(index) * 0.01, accelerometer: SIMD3(0, 0, 9.8))
      }
      let stream = ArraySampleStream(
        samples,
        descriptor: StreamDescriptor(name: "array", sensors: .accelerometer, nominalSampleRate: 100)
      )
      let player = StreamPlayer(stream, pacing: .realTime(speed: 100), batchInterval: batchInterval)
      XCTAssertEqual(player.batchInterval, batchInterval)
      let received = Locked<[Double]>([])
      let finished = DispatchSemaphore(value: 0)
      let subscription = player.subscribe(requestedSampleRate: 100) { event in
        switch event {
        case .sample(let sample): received.withLock { $0.append(sample.timestamp) }
        case .finished: finished.signal()
        case .failure(let failure): XCTFail("\(failure)")
        }
      }
      // 100 times the expected 0.2 s: the machines that run the tests are loaded.
      XCTAssertEqual(
        finished.wait(timeout: .now() + 20), .success, "batch interval \(batchInterval) s")
      subscription.cancel()
      XCTAssertEqual(
        received.withLock { $0 }, samples.map(\.timestamp), "batch interval \(batchInterval) s")
    }
  }

  func testBatchIntervalIsClamped() {
    let stream = ArraySampleStream(
      [],
      descriptor: StreamDescriptor(name: "empty", sensors: .accelerometer, nominalSampleRate: 100))
    XCTAssertEqual(
      StreamPlayer(stream, pacing: .realTime(speed: 1), batchInterval: -1).batchInterval, 0)
    XCTAssertEqual(
      StreamPlayer(stream, pacing: .realTime(speed: 1), batchInterval: .nan).batchInterval, 0)
    XCTAssertEqual(
      StreamPlayer(stream, pacing: .realTime(speed: 1), batchInterval: 9).batchInterval, 1)
    XCTAssertEqual(
      StreamPlayer(stream, pacing: .realTime(speed: 1)).batchInterval,
      StreamPlayer.defaultBatchInterval)
  }

  /// A descriptor's rate that is not a positive number (the readers check theirs; a library
  /// user's stream may not) plays as the default 100 Hz instead of trapping on `1...nan`.
  func testARateThatIsNotAPositiveNumberIsTheDefault() {
    for rate in [Double.nan, -50, 0, .infinity] {
      let stream = ArraySampleStream(
        [], descriptor: StreamDescriptor(name: "x", sensors: [], nominalSampleRate: rate))
      XCTAssertEqual(
        StreamPlayer(stream, pacing: .asFastAsPossible).supportedSampleRates, 1...100, "\(rate)")
    }
  }
}
