// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import MotionEvaluation
import XCTest
import _MotionTestSupport

/// The step counter on the shared step data (Oxford Step Counter, CC BY 4.0; IPOL healthy gait,
/// AGPL-3.0; see ../shared/data/steps/README.md), scored exactly as the README defines. Missing
/// data skips locally and fails on CI.
///
/// Tolerances: where the target is met, the bound IS the target (MAPE ≤ 1.5 % Oxford
/// optimisation, ≤ 2.0 % Oxford validation); the others are regression bounds a little above the
/// figure measured when they were set (docs/Steps.md), so that any worsening fails, with the target
/// stated next to them.
final class StepEvaluationRegressionTests: XCTestCase {
  private func result() throws -> StepEvaluation.Result {
    let folder = SharedData.root.appendingPathComponent("data/steps")
    guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.csv").path)
    else {
      if SharedData.isCI { XCTFail("missing ../shared/data/steps on CI") }
      throw XCTSkip("step data not found under \(folder.path)")
    }
    return try StepEvaluation.evaluate(paths: [folder.path])
  }

  func testSharedStepDataAgainstTargets() throws {
    let result = try result()
    // Every recording of the index must have been found and scored (a missing file fails).
    XCTAssertEqual(result.recordings.count, 105)
    func group(_ name: String) -> StepEvaluation.Group? { result.sets.first { $0.name == name } }
    let optimisation = try XCTUnwrap(group("oxford-optimisation"))
    let validation = try XCTUnwrap(group("oxford-validation"))
    let ipol = try XCTUnwrap(group("ipol"))
    XCTAssertEqual(optimisation.ours.recordings, 31)
    XCTAssertEqual(validation.ours.recordings, 6)
    XCTAssertEqual(ipol.ours.recordings, 68)

    // Targets (issue 8 §4) and regression bounds; the figures when set are in docs/Steps.md.
    XCTAssertLessThanOrEqual(
      optimisation.ours.mape, StepTargets.optimisationMAPE, "\(optimisation.ours)")
    XCTAssertLessThanOrEqual(validation.ours.mape, StepTargets.validationMAPE, "\(validation.ours)")
    XCTAssertLessThanOrEqual(ipol.ours.mape, StepTargets.ipolMAPE, "\(ipol.ours)")
    let worst = result.recordings.max { abs($0.error) < abs($1.error) }
    XCTAssertLessThanOrEqual(
      abs(worst?.error ?? 0), StepTargets.worstRecording, "\(String(describing: worst))")
    // Better than the README's baseline on every set.
    for set in [optimisation, validation, ipol] {
      let baseline = try XCTUnwrap(set.baseline, set.name)
      XCTAssertLessThan(set.ours.mape, baseline.mape + StepTargets.baselineMargin, set.name)
    }
  }
}

/// Bounds of the shared-data regression test, % (see the test's documentation).
enum StepTargets {
  /// Target ≤ 1.5 %.
  static let optimisationMAPE = 1.5
  /// Target ≤ 2.0 %.
  static let validationMAPE = 2.0
  /// Target ≤ 1.5 %, not met: regression bound 0.2 % above the 2.41 % measured (one step on one
  /// ≈ 33-step trial moves the MAPE by 0.04 %).
  static let ipolMAPE = 2.6
  /// Target: no recording off by more than 5 %, not met: regression bound above the 9.1 % measured
  /// (IPOL 2-1: 3 of 33 steps).
  static let worstRecording = 9.5
  /// Ours must not be worse than the baseline by more than this (IPOL is close to it).
  static let baselineMargin = 0.5
}

/// Real vehicle rides (QROWD transport-mode data, MIT; ../shared/data/activity/README.md): the
/// step detector alone, without the pedometer's riding gate, must stay (almost) silent in a car.
/// Bound: 2 steps per minute (car_user2 joins trips and gives 0.8/min when the bound was set;
/// car_user1 gives 0). With the gate both give 0 (docs/Steps.md).
final class StepVehicleRejectionTests: XCTestCase {
  func testCarRidesGiveAlmostNoSteps() throws {
    let folder = SharedData.root.appendingPathComponent("data/activity/qrowd")
    for name in ["car_user1.csv", "car_user2.csv"] {
      let url = folder.appendingPathComponent(name)
      guard FileManager.default.fileExists(atPath: url.path) else {
        if SharedData.isCI { XCTFail("missing \(url.path) on CI") }
        throw XCTSkip("QROWD data not found under \(folder.path)")
      }
      // QROWD: t, ax, ay, az in m/s², Android sign (the shared steps layout).
      let recording = try StepRecording.load(url)
      let count = StepCount(
        times: recording.times, accelerations: recording.accelerations, gate: nil)
      let minutes = (recording.times.last ?? 0) / 60
      XCTAssertGreaterThan(minutes, 5, name)
      XCTAssertLessThanOrEqual(
        Double(count.stepTimes.count) / minutes, 2,
        "\(name): \(count.stepTimes.count) steps in \(minutes) min")
    }
  }
}

/// Stairs with the phone in a pocket (MotionSense's 84 stair trials: iPhone 6s, 50 Hz, g with
/// Apple's sign; MIT, ../shared/data/activity/README.md). There is no step truth for them, so the
/// check is the cadence: stairs are climbed and descended at 1–2 steps/s, and before the irregular
/// bout path 6 trials gave no step at all and 21 under 1 step/s (docs/Steps.md). Bounds: none
/// without a step, at least 74 of 84 at 1 step/s or more (76 when set).
final class StepStairsTests: XCTestCase {
  private func stairFiles() throws -> [URL] {
    let folder = SharedData.root.appendingPathComponent("data/activity/motionsense")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    let stairs = names.filter { $0.contains("_dws_") || $0.contains("_ups_") }.sorted()
    guard stairs.count == 84 else {
      if SharedData.isCI {
        XCTFail("expected 84 MotionSense stair files on CI, found \(stairs.count)")
      }
      throw XCTSkip("MotionSense data not found under \(folder.path)")
    }
    return stairs.map { folder.appendingPathComponent($0) }
  }

  func testStairsInAPocketAreCounted() throws {
    var withoutSteps: [String] = []
    var atOneStepPerSecond = 0
    for url in try stairFiles() {
      let recording = try StepRecording.load(url)
      let count = StepCount(times: recording.times, accelerations: recording.accelerations)
      let seconds = (recording.times.last ?? 0) - (recording.times.first ?? 0)
      if count.stepTimes.isEmpty { withoutSteps.append(url.lastPathComponent) }
      if Double(count.stepTimes.count) >= seconds { atOneStepPerSecond += 1 }
    }
    XCTAssertEqual(withoutSteps, [])
    XCTAssertGreaterThanOrEqual(atOneStepPerSecond, 74)
  }

  /// The irregular path is what counts them: with its RMS bound out of reach, two trials of 35 s
  /// and 30 s of stairs give no step; with it, dozens.
  func testTheIrregularBoutPathCountsStairsThatTheRegularGateRefuses() throws {
    let files = try stairFiles().filter {
      ["sub01_dws_01.csv", "sub13_ups_04.csv"].contains($0.lastPathComponent)
    }
    XCTAssertEqual(files.count, 2)
    var pathOff = StepDetector.Parameters()
    pathOff.minimumIrregularBoutRMS = .infinity
    for url in files {
      let recording = try StepRecording.load(url)
      let with = StepCount(times: recording.times, accelerations: recording.accelerations)
      let without = StepCount(
        times: recording.times, accelerations: recording.accelerations, parameters: pathOff)
      XCTAssertEqual(without.stepTimes.count, 0, url.lastPathComponent)
      XCTAssertGreaterThan(with.stepTimes.count, 30, url.lastPathComponent)
    }
  }

  /// The thigh's strides in the gyroscope (`motionctl steps` reads MotionSense's `gx,gy,gz`) add
  /// the steps |a| misses on stairs: 348 of the 892 that twice the gyroscope's stride cycles put
  /// above |a|'s count (5,364 → 5,712; docs/Steps.md). Walking and jogging already have two
  /// steps per stride: 13 added to 11,568. Bounds: at least 300 on the stairs, at most 0.3 % on
  /// the walks.
  func testTheThighsStridesAddTheStepsOneLegHidesOnStairsOnly() throws {
    let folder = SharedData.root.appendingPathComponent("data/activity/motionsense")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    let walks = names.filter { $0.contains("_wlk_") || $0.contains("_jog_") }.sorted()
    guard walks.count == 70 else {
      if SharedData.isCI { XCTFail("expected 70 MotionSense walking and jogging files on CI") }
      throw XCTSkip("MotionSense data not found under \(folder.path)")
    }
    func added(_ urls: [URL]) throws -> (alone: Int, added: Int) {
      var alone = 0
      var with = 0
      for url in urls {
        let recording = try StepRecording.load(url)
        alone +=
          StepCount(times: recording.times, accelerations: recording.accelerations)
          .stepTimes.count
        with += try StepRecording.count(url).count.stepTimes.count
      }
      return (alone, with - alone)
    }
    let stairs = try added(try stairFiles())
    XCTAssertGreaterThanOrEqual(stairs.added, 300, "of \(stairs.alone)")
    let walking = try added(walks.map { folder.appendingPathComponent($0) })
    XCTAssertGreaterThanOrEqual(walking.added, 0)
    XCTAssertLessThanOrEqual(Double(walking.added), 0.003 * Double(walking.alone))
  }
}
