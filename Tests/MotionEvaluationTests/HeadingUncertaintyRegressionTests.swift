// SPDX-License-Identifier: Apache-2.0

import MotionEvaluation
import MotionFusion
import XCTest
import _MotionTestSupport

/// The heading uncertainty behind `CMDeviceMotion.headingAccuracy` against BROAD's optical ground
/// truth (Laidig et al. 2021, CC BY 4.0), on three of the shared trials: slow rotation, fast
/// combined motion and a magnet attached 5 cm from the sensor.
final class HeadingUncertaintyRegressionTests: XCTestCase {
  func testTheReportedAccuracyBoundsTheHeadingError() throws {
    let names = [
      "01_undisturbed_slow_rotation_A.csv", "21_undisturbed_fast_combined.csv",
      "36_disturbed_attached_magnet_5cm.csv",
    ]
    var paths: [String] = []
    for name in names {
      guard let url = SharedData.broadTrial(name) else {
        if SharedData.isCI { XCTFail("missing BROAD trial \(name) on CI") }
        throw XCTSkip("BROAD trial \(name) not found under \(SharedData.broadDirectory.path)")
      }
      paths.append(url.path)
    }
    let result = try HeadingUncertaintyEvaluation.evaluate(paths: paths)
    // Measured 2026-12-01: within 2σ 100, 100 and 99.0 %; median σ 2.4°, 5.1° and 3.4°; 27,296,
    // 30,429 and 17,239 samples with a σ (the rest come before the calibration is in use).
    // Tolerances: at least 98.5 % within the reported 2σ on every trial; a median σ between 1°
    // and 6°, so that a σ that covers by being huge fails too; a σ on at least 15,000 samples.
    for trial in result.trials {
      XCTAssertGreaterThanOrEqual(trial.withinTwoSigma, 0.985, trial.name)
      XCTAssertGreaterThan(trial.medianSigma, 1, trial.name)
      XCTAssertLessThan(trial.medianSigma, 6, trial.name)
      XCTAssertGreaterThan(trial.samples, 15_000, trial.name)
    }
  }

  /// BROAD's magnetometer comes calibrated, which the estimator cannot know until the device
  /// turns: declared (``AttitudeEstimator/Parameters/rawFieldIsCalibrated``), every sample with
  /// a magnetic heading has a σ, and it still bounds the error. `11_undisturbed_slow_translation_B`
  /// never turns enough for a calibration, so by default it has no σ at all (measured: 0 of
  /// 34,726 samples); declared, 100 % within 2σ with a median σ of 4.3° against a median error of
  /// 0.52°.
  func testAFieldDeclaredCalibratedHasASigmaThroughout() throws {
    let name = "11_undisturbed_slow_translation_B.csv"
    guard let url = SharedData.broadTrial(name) else {
      if SharedData.isCI { XCTFail("missing BROAD trial \(name) on CI") }
      throw XCTSkip("BROAD trial \(name) not found under \(SharedData.broadDirectory.path)")
    }
    let byDefault = try HeadingUncertaintyEvaluation.evaluate(paths: [url.path]).pooled
    XCTAssertEqual(byDefault.samples, 0)
    XCTAssertGreaterThan(byDefault.samplesWithoutSigma, 20_000)
    var parameters = AttitudeEstimator.Parameters.default
    parameters.rawFieldIsCalibrated = true
    let declared = try HeadingUncertaintyEvaluation.evaluate(
      paths: [url.path], parameters: parameters
    ).pooled
    XCTAssertEqual(declared.samplesWithoutSigma, 0)
    XCTAssertEqual(declared.samples, byDefault.samplesWithoutSigma)
    XCTAssertGreaterThanOrEqual(declared.withinTwoSigma, 0.985)
    XCTAssertLessThan(declared.medianSigma, 6)
  }
}
