// SPDX-License-Identifier: Apache-2.0

import MotionEvaluation
import XCTest
import _MotionTestSupport

/// Accuracy regression on one real BROAD trial (Laidig et al. 2021, CC BY 4.0), read from
/// ../shared. Missing data skips locally and fails on CI.
final class BROADRegressionTests: XCTestCase {
  private func trial(_ name: String) throws -> EvaluationTrial {
    guard let url = SharedData.broadTrial(name) else {
      if SharedData.isCI { XCTFail("missing BROAD trial \(name) on CI") }
      throw XCTSkip("BROAD trial \(name) not found under \(SharedData.broadDirectory.path)")
    }
    return try EvaluationTrial.load(path: url.path)
  }

  /// Real-time 9D on the slow-rotation-with-breaks trial. Release figures when the bound was set
  /// (2026-11-25, bias updates every 0.2 s): total 0.90°, inclination 0.31° (VQF: 0.99° / 0.35°;
  /// 0.91° / 0.31° with updates every 4th sample; 0.91° / 0.31° since rest needs a steady
  /// gyroscope, 2026-11-26; 0.83° / 0.30° since accelerometer and magnetometer samples are
  /// compared with the attitude of the instant they describe, 2026-11-26); the bounds allow
  /// 0.2° / 0.1°.
  func testRealtime9DSlowRotationWithBreaks() throws {
    let data = try trial("05_undisturbed_slow_rotation_with_breaks_B.csv")
    XCTAssertGreaterThan(data.count, 50_000)
    let result = try FusionEvaluation.evaluate(data, mode: .realtime9d)
    XCTAssertLessThan(result.total, 0.83 + 0.2, "\(result)")
    XCTAssertLessThan(result.inclination, 0.30 + 0.1, "\(result)")
    XCTAssertGreaterThan(result.total, 0.3, "suspiciously good: \(result)")
  }

  /// The same trial decimated to 20 Hz (k = 14: inputs averaged over each window, as a phone's
  /// slower sensor delivers them). Release figures when the bound was set: total 1.26°, inclination
  /// 0.77°, unchanged by the 0.2 s bias update period, which at 20 Hz is the former
  /// every-4th-sample interval (VQF on the same decimated data: 1.32° / 0.66°; before the
  /// rate-independent timing and the coning correction ours was 1.47° / 0.85° here, and 6.82° /
  /// 4.39° on the mean of the 16 trials; 1.20° / 0.72° since rest needs a steady gyroscope,
  /// 2026-11-26; 0.82° / 0.30° since accelerometer and magnetometer samples are compared with
  /// the attitude of the middle of their interval, 2026-11-26). The bounds allow 0.25° / 0.15°
  /// for platform differences in the last digits that accumulate over 4 000 samples of heading
  /// and bias filtering.
  func testRealtime9DDecimatedTo20Hz() throws {
    let native = try trial("05_undisturbed_slow_rotation_with_breaks_B.csv")
    let data = native.decimated(by: 14)
    XCTAssertEqual(data.count, native.count / 14)
    XCTAssertEqual(data.samplePeriod, native.samplePeriod * 14, accuracy: native.samplePeriod * 0.5)
    let result = try FusionEvaluation.evaluate(data, mode: .realtime9d)
    XCTAssertLessThan(result.total, 0.82 + 0.25, "\(result)")
    XCTAssertLessThan(result.inclination, 0.30 + 0.15, "\(result)")
    XCTAssertGreaterThan(result.total, 0.3, "suspiciously good: \(result)")
  }

  /// Offline 9D on the stationary-magnet trial C decimated to 95 Hz (k = 3). Here the backward
  /// pass adopts a calibration fitted partly to the magnet while the forward pass trusts none;
  /// the last pass used to start from it anyway (9.90°; VQF offline 3.74°). Release figures since
  /// the forward pass must confirm the seed (2026-11-26): total 2.24°, inclination 1.07°; 0.83° /
  /// 0.49° since samples are compared with the attitude of the instant they describe
  /// (2026-11-26). The bounds allow 0.3° / 0.15°.
  func testOffline9DIsNotSeededWithAnUnconfirmedCalibrationAt95Hz() throws {
    let data = try trial("30_disturbed_stationary_magnet_C.csv").decimated(by: 3)
    let result = try FusionEvaluation.evaluate(data, mode: .offline9d)
    XCTAssertLessThan(result.total, 0.83 + 0.3, "\(result)")
    XCTAssertLessThan(result.inclination, 0.49 + 0.15, "\(result)")
    XCTAssertGreaterThan(result.total, 0.3, "suspiciously good: \(result)")
  }

  /// Real-time 9D on the phone-vibration trial at 20 Hz. Each magnetometer sample used to be
  /// compared with the attitude at its interval's end, 25 ms and more after the instant it
  /// describes: the attitude-aided calibration fitted badly (residual 6 % of the field instead of
  /// 3 %), was never trusted, and the heading was off by 6.5° (total 6.54°, VQF 2.27°). Compared
  /// with the attitude of the middle of the interval, 8 ms earlier still (the magnetometer's
  /// delay): 1.70° / 0.42° (2026-11-26). The bounds allow 0.3° / 0.15°.
  func testRealtime9DPhoneVibrationAt20Hz() throws {
    let data = try trial("26_disturbed_phone_vibration_A.csv").decimated(by: 14)
    let result = try FusionEvaluation.evaluate(data, mode: .realtime9d)
    XCTAssertLessThan(result.total, 1.70 + 0.3, "\(result)")
    XCTAssertLessThan(result.inclination, 0.42 + 0.15, "\(result)")
    XCTAssertGreaterThan(result.total, 0.3, "suspiciously good: \(result)")
  }
}
