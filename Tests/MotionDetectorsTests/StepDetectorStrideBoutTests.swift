// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import XCTest
import _MotionTestSupport

/// Bouts that the gyroscope's strides confirm where |a| alone does not
/// (`Parameters.stepsToConfirmStrideBout`), on MotionSense's pocket stairs (MotionSense,
/// Malekzadeh et al., IoTDI 2019, MIT licence; an iPhone 6s in a front trouser pocket). There the
/// step band of |a| can lock on the stride, and the peaks it finds never reach the periodicity a
/// bout needs: whole flights went uncounted. The reference is the thigh's own strides, two steps
/// each, counted after the fact by `tools/steps/gyrostrides.py` (an estimate that shares nothing
/// with the detector; docs/Steps.md).
final class StepDetectorStrideBoutTests: XCTestCase {
  /// Steps counted in a MotionSense recording (`t, ax, ay, az` in g with Apple's sign, then
  /// `gx, gy, gz` in rad/s), with the gyroscope or without it.
  private func count(_ name: String, gyroscope: Bool = true) throws -> Int {
    let url = SharedData.root.appendingPathComponent("data/activity/motionsense/\(name).csv")
    guard FileManager.default.fileExists(atPath: url.path) else {
      if SharedData.isCI { XCTFail("missing \(url.path) on CI") }
      throw XCTSkip("shared MotionSense file \(url.path) not found")
    }
    var detector = StepDetector()
    var steps = 0
    try feedSharedTable(url, accelerationScale: 1, gyroscope: gyroscope, to: &detector) { _, _ in
      steps += 1
    }
    while detector.takeQueuedStep() != nil { steps += 1 }
    return steps
  }

  /// Two upstairs recordings whose flights |a| alone hardly counts. Before the strides could
  /// confirm a bout: 19 and 61 steps (gyroscope estimates 40 and 94); now 43 and 92. The
  /// bounds are the estimates ± 15 %.
  func testPocketStairsThatAlwaysLookIrregularInTheAccelerometerAreCounted() throws {
    for (name, estimate) in [("sub01_ups_12", 40.0), ("sub04_ups_04", 94.0)] {
      let steps = Double(try count(name))
      XCTAssertGreaterThan(steps, 0.85 * estimate, name)
      XCTAssertLessThan(steps, 1.15 * estimate, name)
    }
  }

  /// Level walking in a pocket, which |a| already counts: the strides confirm nothing more
  /// (the same count without the gyroscope, 203 steps).
  func testALevelWalkCountsTheSameWithAndWithoutTheStrides() throws {
    let name = "sub01_wlk_07"
    XCTAssertEqual(try count(name), try count(name, gyroscope: false), name)
  }
}
