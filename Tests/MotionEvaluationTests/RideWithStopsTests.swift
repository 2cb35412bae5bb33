// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import MotionEvaluation
import MotionMath
import XCTest
import _MotionTestSupport

/// A bicycle ride with stops at lights, then a walk, through the pedometer's step path
/// (``PedometerTracker``: detector, classifier, riding gate). The classifier reads a bicycle
/// waiting at a light as rest, not as a ride at a standstill; the gate must not let the
/// pedalling that follows each stop count while the classifier is not yet sure of the ride
/// again, and the walk after the last stop must keep its steps.
///
/// Built from QROWD/TR (MIT, 2018; ../shared/data/activity/README.md), per user: 150 s pieces
/// of the bike file with 45 s pieces of the same user's still file between them, then 45 s still
/// and 90 s of the walk file. Each still and walk piece is turned so that its mean gravity matches
/// the last 2 s of the piece before it (the phone stays in its pocket). No bicycle recording with
/// real stops is shared; the shipped model saw these files in training, so this checks the gate,
/// not the classifier.
final class RideWithStopsTests: XCTestCase {
  private static let bikePiece = 150.0
  private static let stopPiece = 45.0
  private static let walkPiece = 90.0

  func testPedallingAfterAStopIsNotCountedAndTheWalkAfterKeepsItsSteps() throws {
    let folder = SharedData.root.appendingPathComponent("data/activity/qrowd")
    var laterRideSteps: [Int] = []
    for user in 1...2 {
      let files = ["bike", "still", "walk"].map {
        folder.appendingPathComponent("\($0)_user\(user).csv")
      }
      for file in files where !FileManager.default.fileExists(atPath: file.path) {
        if SharedData.isCI { XCTFail("missing shared activity file \(file.path) on CI") }
        throw XCTSkip("shared activity file \(file.path) not found")
      }
      let (bike, still, walk) = (
        try Self.samples(files[0]), try Self.samples(files[1]), try Self.samples(files[2])
      )
      let sequence = Self.rideWithStops(bike: bike, still: still, walk: walk)
      XCTAssertGreaterThanOrEqual(sequence.count, 7, "user \(user): at least three stops")
      let tallies = ActivityEvaluation.countGatedSteps(
        sequence, parameters: .default, source: "qrowd")
      XCTAssertEqual(tallies.count, sequence.count)
      let rides = tallies.filter { $0.label == "cycling" }
      let afterStops = rides.dropFirst().map(\.counted).reduce(0, +)
      let walking = try XCTUnwrap(tallies.last)
      XCTAssertEqual(walking.label, "walking")
      print(
        "ride with stops, user \(user): pedalling after a stop \(afterStops) steps counted of "
          + "\(rides.dropFirst().map(\.detected).reduce(0, +)) found; walk \(walking.counted) of "
          + "\(walking.detected)")
      laterRideSteps.append(afterStops)
      // 2026-11-29: 151 of 151 and 185 of 185; every held step of the walk comes back once the
      // walk is confirmed.
      XCTAssertGreaterThan(walking.detected, 100, "user \(user)")
      XCTAssertGreaterThanOrEqual(walking.counted, walking.detected - 1, "user \(user)")
      let stops = tallies.filter { $0.label == "stationary" }
      XCTAssertEqual(stops.map(\.counted).reduce(0, +), 0, "user \(user)")
    }
    // 2026-11-29: 0 and 0 with the stop rule; 6 and 2 before it (the hold ended at the first
    // report of rest, and each stop's first pedalling counted until the ride was reported).
    XCTAssertLessThanOrEqual(laterRideSteps.reduce(0, +), 1, "\(laterRideSteps)")
  }

  /// A file's samples (s; g with Apple's sign).
  private static func samples(_ url: URL) throws -> [(Double, SIMD3<Double>)] {
    var samples: [(Double, SIMD3<Double>)] = []
    try ActivityRecording.read(url) { samples.append(($0, $1)) }
    return samples
  }

  /// The pieces laid end to end on one clock (see the type's comment).
  private static func rideWithStops(
    bike: [(Double, SIMD3<Double>)], still: [(Double, SIMD3<Double>)],
    walk: [(Double, SIMD3<Double>)]
  ) -> ActivityEvaluation.Sequence {
    var sequence: ActivityEvaluation.Sequence = []
    var clock = 0.0
    var previousForces: [SIMD3<Double>] = []
    func append(
      _ label: ActivityClass, _ source: [(Double, SIMD3<Double>)], from start: Double,
      length: Double, turned: Bool
    ) {
      let piece = source.filter { $0.0 >= start && $0.0 < start + length }
      guard let first = piece.first?.0 else { return }
      var forces = piece.map(\.1)
      if turned, !previousForces.isEmpty {
        let lastTwoSeconds = previousForces.suffix(30).reduce(SIMD3<Double>(), +)
        let head = forces.prefix(30).reduce(SIMD3<Double>(), +)
        let whole = forces.reduce(SIMD3<Double>(), +)
        // A walk is turned by its first 2 s (its mean over 90 s is as good); rest by its mean.
        let turn = Quaternion(rotating: label == .walking ? head : whole, to: lastTwoSeconds)
        forces = forces.map { turn.act(on: $0) }
      }
      let times = piece.map { clock + $0.0 - first }
      let period = piece.count > 1 ? piece[1].0 - piece[0].0 : 1.0 / 15
      clock = (times.last ?? clock) + period
      sequence.append((label, times, forces))
      previousForces = forces
    }
    let bikeStart = (bike.first?.0 ?? 0) + 5
    let bikeEnd = (bike.last?.0 ?? 0) - 5
    let stillStart = (still.first?.0 ?? 0) + 5
    var stops = 0
    var next = bikeStart
    while next + bikePiece <= bikeEnd {
      append(.cycling, bike, from: next, length: bikePiece, turned: false)
      next += bikePiece
      append(
        .stationary, still, from: stillStart + Double(stops) * stopPiece, length: stopPiece,
        turned: true)
      stops += 1
    }
    append(.walking, walk, from: (walk.first?.0 ?? 0) + 5, length: walkPiece, turned: true)
    return sequence
  }
}
