// SPDX-License-Identifier: Apache-2.0

import MotionFusion
import MotionMath
import MotionSensors
import XCTest

/// The horizontal-only hard-iron calibration: a phone lying flat and turned about the vertical
/// (the simulator's `rotateZ` with the phone magnetometer: hard iron (12, −8, 20) µT, 50 µT field
/// dipping 60°) has its horizontal offset fitted and its heading corrected, while it claims no
/// more than `low` accuracy and keeps asking for calibration motion; an iron-free sensor keeps its
/// raw field.
final class MagnetometerHorizontalCalibrationTests: XCTestCase {
  /// Turning flat about the vertical fits the horizontal offset (12, −8) µT, which takes the
  /// heading error from about 20° RMS (raw field) to that of an iron-free magnetometer; the
  /// vertical offset is not observable, so the accuracy stays at most `low`, the calibration is not
  /// "trusted" as a full one, and the API keeps asking for calibration motion.
  func testRotationAboutVerticalCorrectsHeadingWithHorizontalOffset() throws {
    let seed: UInt64 = 0x5EED_A2
    let result = try SimulatedMagnetometerRun.run("rotateZ", seed: seed)
    XCTAssertTrue(result.allFinite, "seed \(seed)")
    XCTAssertTrue(
      result.accuracyLevels.allSatisfy { $0 <= .low },
      "levels \(result.accuracyLevels), seed \(seed)")
    XCTAssertEqual(result.final.magneticCalibrationAccuracy, .low, "seed \(seed)")
    XCTAssertTrue(result.final.needsCalibrationMotion, "seed \(seed)")
    let calibrator = result.final.attitudeEstimator.state.magnetometerCalibrator
    XCTAssertTrue(calibrator.isHorizontalCalibrationInUse, "seed \(seed)")
    XCTAssertFalse(calibrator.isTrustedForHeading, "seed \(seed)")
    XCTAssertFalse(calibrator.hasFullCalibrationFit, "seed \(seed)")
    // The offset across the (sensor z) rotation axis is fitted: 1.1 µT off measured. Bound 2 µT:
    // the fit assumes the 6D heading fixed, and the gyroscope's scale-factor error turns it by
    // several degrees over the run. Along the axis nothing is claimed: it keeps its previous value
    // (zero), up to the axis's small tilt from sensor z (0.15 µT measured; bound 0.5 µT).
    let offset = calibrator.hardIronOffset
    XCTAssertLessThan(
      (SIMD3(offset.x, offset.y, 0) - SIMD3<Double>(12, -8, 0)).length, 2,
      "offset \(offset), seed \(seed)")
    XCTAssertLessThan(abs(offset.z), 0.5, "offset \(offset), seed \(seed)")
    // Heading over the last half: 1.4° RMS measured (raw field: about 20°); bound 3°.
    let half = result.timestamps.count / 2
    let headingRMS = SimulatedMagnetometerRun.rms(result.headingErrors.suffix(from: half))
    XCTAssertLessThan(headingRMS, 3, "seed \(seed)")
  }

  /// With another seed the gyroscope's scale-factor error turns the 6D heading faster than the
  /// magnetic heading filter follows (13.7° RMS over the last half even without iron), which no
  /// calibration can fix; the horizontal calibration must still remove the hard iron's share,
  /// i.e. do as well as the iron-free magnetometer (12.9° measured; bound: within 1°).
  func testRotationAboutVerticalMatchesIronFreeHeading() throws {
    let seed: UInt64 = 1
    let result = try SimulatedMagnetometerRun.run("rotateZ", seed: seed)
    let ironFree = try SimulatedMagnetometerRun.run("rotateZ", seed: seed, ironFree: true)
    XCTAssertTrue(result.allFinite, "seed \(seed)")
    let half = result.timestamps.count / 2
    let headingRMS = SimulatedMagnetometerRun.rms(result.headingErrors.suffix(from: half))
    let ironFreeRMS = SimulatedMagnetometerRun.rms(ironFree.headingErrors.suffix(from: half))
    XCTAssertLessThan(headingRMS, ironFreeRMS + 1, "seed \(seed)")
  }

  /// Without iron, the horizontal fit finds no offset beyond its uncertainty and leaves the raw
  /// field untouched.
  func testIronFreeFlatRotationKeepsRawField() throws {
    let seed: UInt64 = 0x5EED_A3
    let result = try SimulatedMagnetometerRun.run("rotateZ", seed: seed, ironFree: true)
    XCTAssertTrue(result.allFinite, "seed \(seed)")
    let calibrator = result.final.attitudeEstimator.state.magnetometerCalibrator
    XCTAssertEqual(calibrator.hardIronOffset, .zero, "seed \(seed)")
    XCTAssertFalse(calibrator.isHorizontalCalibrationInUse, "seed \(seed)")
    XCTAssertEqual(calibrator.trustedCalibrationChangeCount, 0, "seed \(seed)")
    XCTAssertTrue(
      result.accuracyLevels.allSatisfy { $0 <= .low },
      "levels \(result.accuracyLevels), seed \(seed)")
  }
}
