// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import OpenCoreMotion

/// `UpdateDecimator`, the pacing rule of every update interval (in-process managers and the
/// daemon's subscriptions alike).
final class UpdateDecimatorTests: XCTestCase {
  /// The delivered timestamps of a source at `rate` Hz from `start` for `count` samples.
  private func deliveries(
    _ decimator: inout UpdateDecimator, interval: Double, rate: Double, start: Double = 0,
    count: Int
  ) -> [Double] {
    (0..<count).map { start + Double($0) / rate }.filter {
      decimator.accept($0, interval: interval)
    }
  }

  func testEachDeliveryIsTheSampleNearestItsDueTime() {
    // 30 Hz from 100 Hz: the k-th delivery is the sample nearest k/30 s (spacings of 30 and
    // 40 ms, never drifting), over 30 s.
    var decimator = UpdateDecimator(nominalSourcePeriod: 0.01)
    let times = deliveries(&decimator, interval: 1.0 / 30, rate: 100, count: 3001)
    XCTAssertEqual(times.count, 901)
    for (k, time) in times.enumerated() where abs(time - Double(k) / 30) > 0.005 + 1e-9 {
      XCTFail("delivery \(k) at \(time) s, due at \(Double(k) / 30) s")
      break
    }
  }

  func testIntervalZeroDeliversEverySample() {
    var decimator = UpdateDecimator(nominalSourcePeriod: 0.01)
    XCTAssertEqual(deliveries(&decimator, interval: 0, rate: 100, count: 50).count, 50)
  }

  func testAGapRestartsTheScheduleWithoutABurst() {
    var decimator = UpdateDecimator(nominalSourcePeriod: 0.01)
    _ = deliveries(&decimator, interval: 0.05, rate: 100, count: 100)  // up to 0.99 s
    // 2 s later: the first sample is delivered, then every 50 ms again (no catching up).
    let after = deliveries(&decimator, interval: 0.05, rate: 100, start: 3, count: 30)
    XCTAssertEqual(after.first, 3)
    let spacings = zip(after.dropFirst(), after).map { $0 - $1 }
    XCTAssertTrue(spacings.allSatisfy { abs($0 - 0.05) < 1e-9 }, "\(spacings)")
  }

  /// A source whose time starts again (a replay restarted by a new motion daemon) is paced from
  /// its new start, not held back until it reaches the old due time.
  func testTimeGoingBackStartsANewSchedule() {
    var decimator = UpdateDecimator(nominalSourcePeriod: 0.01)
    _ = deliveries(&decimator, interval: 0.02, rate: 100, count: 300)  // up to 2.99 s
    let after = deliveries(&decimator, interval: 0.02, rate: 100, start: 0, count: 100)
    XCTAssertEqual(after.first, 0)
    XCTAssertEqual(after.count, 50)
    // Jitter backwards within an interval is not a new timeline.
    var jittery = UpdateDecimator(nominalSourcePeriod: 0.01)
    XCTAssertTrue(jittery.accept(1.00, interval: 0.05))
    XCTAssertFalse(jittery.accept(0.995, interval: 0.05))
    XCTAssertTrue(jittery.accept(1.05, interval: 0.05))
  }
}
