// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import OpenCoreMotion

/// ``WallClockStepWatch``: a step of the wall clock against the boot clock is reported once, by
/// its size and sign; a slew under the tolerance is not, until it adds up to more.
final class WallClockStepWatchTests: XCTestCase {
  private func wall(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

  func testTheFirstReadingAnchorsAndAStepIsReportedOnce() throws {
    var watch = WallClockStepWatch(tolerance: 1)
    XCTAssertNil(watch.step(wall: wall(100), boot: 0))
    XCTAssertNil(watch.step(wall: wall(110), boot: 10), "both clocks moved alike")
    let forward = try XCTUnwrap(watch.step(wall: wall(1_795_000_120), boot: 20))
    XCTAssertEqual(forward, 1_795_000_000, accuracy: 1e-3)
    XCTAssertNil(watch.step(wall: wall(1_795_000_130), boot: 30), "re-anchored at the step")
    let back = try XCTUnwrap(watch.step(wall: wall(1_795_000_100), boot: 40))
    XCTAssertEqual(back, -40, accuracy: 1e-6)
  }

  /// NTP's slew (0.5 ms/s at most) is under the tolerance for a while, then counts once.
  func testASlewCountsOnceItAddsUpToMoreThanTheTolerance() {
    var watch = WallClockStepWatch(tolerance: 1)
    XCTAssertNil(watch.step(wall: wall(1000), boot: 0))
    var reported: [Double] = []
    for second in stride(from: 1.0, through: 3000, by: 1) {
      if let step = watch.step(wall: wall(1000 + second * 1.0005), boot: second) {
        reported.append(step)
      }
    }
    XCTAssertEqual(reported.count, 1)
    XCTAssertEqual(reported.first ?? 0, 1.0, accuracy: 0.001)
  }

  func testReadingsThatAreNotFiniteAreIgnored() {
    var watch = WallClockStepWatch()
    XCTAssertNil(watch.step(wall: wall(100), boot: .nan))
    XCTAssertNil(watch.step(wall: wall(100), boot: 0), "the first finite reading anchors")
    XCTAssertNil(watch.step(wall: wall(.infinity), boot: 1))
    XCTAssertNotNil(watch.step(wall: wall(200), boot: 2))
  }
}
