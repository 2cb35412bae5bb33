// SPDX-License-Identifier: Apache-2.0

import MotionEvaluation
import XCTest

/// `IntervalAverager`: averages per interval, stamps at the centres, keeps gaps, ignores junk.
/// Tolerance 1e-12 (sums of a few doubles).
final class IntervalAveragerTests: XCTestCase {
  private func run(
    _ averager: inout IntervalAverager, _ samples: [(Double, SIMD3<Double>)]
  ) -> [(time: Double, value: SIMD3<Double>)] {
    var out: [(time: Double, value: SIMD3<Double>)] = []
    for (time, value) in samples {
      if let averaged = averager.add(time: time, value: value) { out.append(averaged) }
    }
    if let last = averager.finish() { out.append(last) }
    return out
  }

  func testFourHundredHertzBecomesFiftyHertzAverages() throws {
    var averager = try XCTUnwrap(IntervalAverager(rate: 50))
    // 400 Hz for 0.1 s: x counts the samples, so each 20 ms interval averages 8 consecutive ones.
    let samples = (0..<40).map { (10 + Double($0) / 400, SIMD3<Double>(Double($0), 1, -2)) }
    let out = run(&averager, samples)
    XCTAssertEqual(out.count, 5)
    for (k, sample) in out.enumerated() {
      XCTAssertEqual(sample.time, 10 + (Double(k) + 0.5) * 0.02, accuracy: 1e-12)
      XCTAssertEqual(sample.value.x, Double(8 * k) + 3.5, accuracy: 1e-12)
      XCTAssertEqual(sample.value.y, 1, accuracy: 1e-12)
      XCTAssertEqual(sample.value.z, -2, accuracy: 1e-12)
    }
  }

  func testAGapStaysAGapAndJunkIsSkipped() throws {
    var averager = try XCTUnwrap(IntervalAverager(rate: 10))
    let out = run(
      &averager,
      [
        (0.00, SIMD3(1, 1, 1)), (0.05, SIMD3(3, 3, 3)),
        (0.07, SIMD3(.nan, 0, 0)), (.infinity, SIMD3(9, 9, 9)),
        (5.02, SIMD3(2, 2, 2)),
      ])
    XCTAssertEqual(out.count, 2)
    XCTAssertEqual(out[0].time, 0.05, accuracy: 1e-12)
    XCTAssertEqual(out[0].value.x, 2, accuracy: 1e-12)
    XCTAssertEqual(out[1].time, 5.05, accuracy: 1e-12)
    XCTAssertEqual(out[1].value.x, 2, accuracy: 1e-12)
  }

  func testFinishEmptiesAndTheGridContinues() throws {
    var averager = try XCTUnwrap(IntervalAverager(rate: 10))
    XCTAssertNil(averager.finish())
    XCTAssertNil(averager.add(time: 1.0, value: SIMD3(1, 0, 0)))
    XCTAssertEqual(try XCTUnwrap(averager.finish()).value.x, 1)
    XCTAssertNil(averager.finish())
    // The next sample opens a new interval on the same grid, and nothing divides by zero.
    XCTAssertNil(averager.add(time: 1.33, value: SIMD3(4, 0, 0)))
    let last = try XCTUnwrap(averager.finish())
    XCTAssertEqual(last.time, 1.35, accuracy: 1e-12)
    XCTAssertEqual(last.value.x, 4)
  }

  func testRatesThatAreNotRatesAreRefused() {
    for rate in [0, -50, .nan, .infinity] { XCTAssertNil(IntervalAverager(rate: rate), "\(rate)") }
  }
}
