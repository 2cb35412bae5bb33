// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import XCTest

/// The detectors' resampling on times too large for a grid period to change them, and one
/// corrupt acceleration in a walk.
final class DetectorHostileTimeTests: XCTestCase {
  private func walkSample(_ i: Int) -> SIMD3<Double> {
    SIMD3(0, 0, -(1 + 0.25 * sin(2 * Double.pi * 2 * Double(i) / 100)))
  }

  /// From about 1e14 s a 20 ms period is below the spacing of doubles; each sample must still
  /// return (it used to loop for ever).
  func testTimesBeyondTheGridsResolutionFinish() {
    for start in [1e14, 1.7e15, 1e16, 1e300] {
      var steps = StepDetector()
      var features = ActivityFeatureExtractor()
      for i in 0..<500 {
        let time = start + Double(i) * 0.01
        _ = steps.process(time: time, acceleration: walkSample(i))
        _ = features.process(time: time, acceleration: walkSample(i))
      }
    }
  }

  /// One reading of 1e100 g in 30 s of walking is left out (counted), and the count is that of
  /// the same walk without it (tolerance: one step, the sample's neighbourhood).
  func testOneCorruptSampleIsSkippedNotFelt() {
    func count(corruptAt corrupt: Int?) -> (steps: Int, skipped: Int) {
      var detector = StepDetector()
      var steps = 0
      for i in 0..<3000 {
        let value = i == corrupt ? SIMD3(1e100, 0, 0) : walkSample(i)
        if detector.process(time: Double(i) / 100, acceleration: value) != nil { steps += 1 }
      }
      while detector.takeQueuedStep() != nil { steps += 1 }
      return (steps, detector.skippedSamples)
    }
    let clean = count(corruptAt: nil)
    let corrupted = count(corruptAt: 1500)
    XCTAssertGreaterThan(clean.steps, 50)
    XCTAssertEqual(clean.skipped, 0)
    XCTAssertEqual(corrupted.skipped, 1)
    XCTAssertLessThanOrEqual(abs(corrupted.steps - clean.steps), 1)
  }
}
