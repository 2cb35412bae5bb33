// SPDX-License-Identifier: Apache-2.0

import XCTest

@testable import MotionFusion

/// Sample periods derived from hostile input (a header, timestamps) must not trap the filter
/// set-up.
final class LowPassFilterHostileRateTests: XCTestCase {
  func testAbsurdSamplePeriodsGiveABoundedWarmUp() {
    for period in [1e-20, 0, -1, .nan, .infinity, 1e300] {
      let filter = LowPassFilter3(timeConstant: 1, samplePeriod: period)
      XCTAssertGreaterThanOrEqual(filter.warmUpCount, 1, "period \(period)")
      XCTAssertLessThanOrEqual(
        filter.warmUpCount, Int(LowPassFilter3.maximumWarmUpCount), "period \(period)")
    }
    // Ordinary rates are unchanged: τ = 1 s at 100 Hz averages 100 samples.
    XCTAssertEqual(LowPassFilter3(timeConstant: 1, samplePeriod: 0.01).warmUpCount, 100)
  }
}
