// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// A device-motion run on the daemon's fused motion marks a gap in its estimates
/// (``ReferenceFrameAligner/continueHeadingAfterGap()``) on whichever thread tells it of a lost
/// connection: while it subscribes again with the daemon away (its interval changed), the new
/// daemon stream is told on the subscribing or the reconnecting thread while the stream it
/// replaces delivers estimates on the connection's reader thread. The aligner's state had no
/// lock of its own; the thread sanitizer (`.ci/sanitize`, which runs this target) reported the
/// two threads' accesses as a data race.
final class ReferenceFrameAlignerThreadTests: XCTestCase {
  func testAGapMayBeMarkedWhileEstimatesAreTurnedIntoUpdates() {
    let aligner = ReferenceFrameAligner(frame: .xArbitraryZVertical)
    let rounds = 1000
    let updates = Locked(0)
    let done = DispatchGroup()
    done.enter()
    Thread {
      for i in 0..<rounds {
        let estimate = DeviceMotionEstimate(
          timestamp: Double(i) / 100, earthFromSensor6D: .aboutZ(Double(i) / 100),
          earthFromSensor9D: .identity, hasMagneticHeading: false, gyroscope: .zero,
          gyroscopeBias: .zero, accelerometer: SIMD3(0, 0, 9.81), calibratedMagneticField: nil,
          magneticCalibrationAccuracy: .uncalibrated, needsCalibrationMotion: false,
          headingUncertainty: nil)
        if aligner.deviceMotion(from: estimate) != nil { updates.withLock { $0 += 1 } }
      }
      done.leave()
    }.start()
    done.enter()
    Thread {
      for _ in 0..<rounds { aligner.continueHeadingAfterGap() }
      done.leave()
    }.start()
    XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "the threads did not finish")
    XCTAssertEqual(updates.withLock { $0 }, rounds)
  }
}
