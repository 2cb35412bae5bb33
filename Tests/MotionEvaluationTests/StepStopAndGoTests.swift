// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import MotionEvaluation
import MotionMath
import XCTest
import _MotionTestSupport

/// Walking with stops, as in a shop or a museum (Oxford Step Counter, CC BY 4.0; IPOL healthy
/// gait, AGPL-3.0; ../shared/data/steps/README.md): the riding gate must not cost such a walk
/// its steps. A walk that starts may be taken for a ride for a second or two, with high
/// confidence; if a stop followed before walking was reported, the gate would drop the steps it
/// held. The 105 recordings are cut into walking pieces of 4–14 s with 3–20 s of standing
/// between them, counted through the gate and without it. The standing is real: pieces of
/// MotionSense's standing trials (iPhone 6s in a trouser pocket, 50 Hz; MIT,
/// ../shared/data/activity/README.md), turned so that their mean gravity matches the walking
/// piece's last second. Lengths and pieces are drawn from a seeded generator.
final class StepStopAndGoTests: XCTestCase {
  func testWalkingWithStopsKeepsItsSteps() throws {
    let folder = SharedData.root.appendingPathComponent("data/steps")
    let index = folder.appendingPathComponent("index.csv")
    guard FileManager.default.fileExists(atPath: index.path) else {
      if SharedData.isCI { XCTFail("missing ../shared/data/steps on CI") }
      throw XCTSkip("step data not found under \(folder.path)")
    }
    let names = try String(contentsOf: index, encoding: .utf8).split(whereSeparator: \.isNewline)
      .dropFirst()
      .compactMap { $0.split(separator: ",").first.map(String.init) }
    XCTAssertEqual(names.count, 105)
    let standingFolder = SharedData.root.appendingPathComponent("data/activity/motionsense")
    let standingNames =
      ((try? FileManager.default.contentsOfDirectory(atPath: standingFolder.path)) ?? [])
      .filter { $0.contains("_std_") }.sorted()
    guard standingNames.count == 28 else {
      if SharedData.isCI { XCTFail("expected 28 MotionSense standing trials on CI") }
      throw XCTSkip("MotionSense data not found under \(standingFolder.path)")
    }
    let standing = try standingNames.map {
      try StepRecording.load(standingFolder.appendingPathComponent($0))
    }
    // One fixed construction, whatever MOTION_TEST_SEED says: the bound below is a regression
    // bound for these walks (the seed `testSeed()` gave this test when the figures were measured;
    // another seed, 8594307532611148563, keeps 13,588 of 13,683, 99.3 %).
    let seed: UInt64 = 8_595_561_210_888_451_507
    var random = SplitMix64(seed: seed)
    var gatedTotal = 0
    var aloneTotal = 0
    var worst: (name: String, gated: Int, alone: Int)?
    for name in names {
      let recording = try StepRecording.load(folder.appendingPathComponent(name))
      let (times, forces) = Self.stopAndGo(recording, standing: standing, using: &random)
      let gated = StepCount(times: times, accelerations: forces).stepTimes.count
      let alone = StepCount(times: times, accelerations: forces, gate: nil).stepTimes.count
      gatedTotal += gated
      aloneTotal += alone
      if alone - gated > (worst.map { $0.alone - $0.gated } ?? 0) {
        worst = (name, gated, alone)
      }
    }
    print(
      "stop-and-go walking, seed \(seed): \(gatedTotal) steps through the gate, \(aloneTotal) "
        + "without it; most lost: \(String(describing: worst))")
    XCTAssertGreaterThan(aloneTotal, 10_000, "seed \(seed)")
    // 13,575 of 13,657 when set (99.40 %); the gate of 2026-11-28 evening kept 13,561
    // (99.30 %), and with the 5 s confirmation alone 13,464 (98.6 %): a regression bound
    // between.
    XCTAssertGreaterThanOrEqual(
      Double(gatedTotal), 0.9932 * Double(aloneTotal), "seed \(seed)")
  }

  /// The recording cut into walking pieces with pieces of `standing` between them.
  private static func stopAndGo(
    _ recording: StepRecording, standing: [StepRecording], using random: inout SplitMix64
  ) -> ([Double], [SIMD3<Double>]) {
    let times = recording.times
    let forces = recording.accelerations
    var outTimes: [Double] = []
    var outForces: [SIMD3<Double>] = []
    var index = 0
    var shift = 0.0
    while index < times.count {
      let pieceStart = outForces.count
      let pieceEnd = times[index] + Double.random(in: 4...14, using: &random)
      while index < times.count, times[index] < pieceEnd {
        outTimes.append(times[index] + shift)
        outForces.append(forces[index])
        index += 1
      }
      guard let now = outTimes.last, index < times.count else { break }
      // The walking piece's gravity direction over its last second.
      var lastSecond = SIMD3<Double>()
      for sample in pieceStart..<outForces.count where outTimes[sample] > now - 1 {
        lastSecond += outForces[sample]
      }
      let trial = standing[Int.random(in: 0..<standing.count, using: &random)]
      let length = Double.random(in: 3...20, using: &random)
      let trialEnd = (trial.times.last ?? 0) - length
      let from = Double.random(in: 0...max(trialEnd, 0), using: &random)
      let piece = zip(trial.times, trial.accelerations).filter {
        $0.0 >= from && $0.0 < from + length
      }
      let pieceMean = piece.reduce(SIMD3<Double>()) { $0 + $1.1 }
      let turn = Quaternion(rotating: pieceMean, to: lastSecond)
      let offset = now + 0.02 - from
      for (time, force) in piece {
        outTimes.append(time + offset)
        outForces.append(turn.act(on: force))
      }
      // The next walking piece starts 0.02 s after the standing.
      shift = (outTimes.last ?? now) + 0.02 - times[index]
    }
    return (outTimes, outForces)
  }
}
