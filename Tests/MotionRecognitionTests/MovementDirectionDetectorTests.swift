// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionRecognition

final class MovementDirectionDetectorTests: XCTestCase {
  func testEveryDirectionWithGentleAndHardStops() {
    for deviceMotion in [false, true] {
      for direction in MovementDirection.allCases {
        // (start width, stop width): an even move, and one stopped three times harder than started,
        // where the naive "largest force" method reports the opposite direction.
        for (startWidth, stopWidth) in [(0.2, 0.2), (0.3, 0.1), (0.12, 0.3)] {
          let seed = testSeed()
          var motion = SyntheticMotion(seed: seed)
          let starts = [0.5, 2.0]
          let inputs = motion.samples(
            duration: 3.2, gravity: { _ in SIMD3(0, -0.6, -0.8) },
            user: { t in
              starts.reduce(.zero) {
                $0
                  + sharpMove(
                    t, start: $1, direction: direction.vector, startPeak: 0.5,
                    startWidth: startWidth,
                    stopWidth: stopWidth)
              }
            }, deviceMotion: deviceMotion)
          let moves = inputs.motionEvents(detectedBy: MovementDirectionDetector())
          let context =
            "\(direction) widths \(startWidth)/\(stopWidth) dm \(deviceMotion) seed \(seed)"
          XCTAssertEqual(moves.map(\.direction), [direction, direction], context)
          for (move, start) in zip(moves, starts) {
            XCTAssertEqual(move.startTime, start, accuracy: 0.06, context)
            // Reported once the move has stopped (plus the 0.12 s quiet time); the tail of a gentle
            // stop lobe is already below the 0.1 g onset threshold, so allow up to 0.12 s early.
            XCTAssertEqual(
              move.timestamp, start + startWidth + stopWidth + 0.12, accuracy: 0.12, context)
            XCTAssertLessThan(move.startPeak.dot(move.stopPeak), 0, context + " \(move)")
          }
          if stopWidth < startWidth, let move = moves.first {
            // The naive method would pick the stop force, which points the other way.
            XCTAssertGreaterThan(move.stopPeak.length, move.startPeak.length, context)
            XCTAssertEqual(
              MovementDirection(closestTo: move.stopPeak),
              MovementDirection(closestTo: -direction.vector))
          }
        }
      }
    }
  }

  func testSlowTiltIsNotAMove() {
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed)
    let inputs = motion.samples(
      duration: 6,
      gravity: { t in
        let angle = 30 * Units.radiansPerDegree * Double.sin(2 * .pi * 0.25 * t)
        return SIMD3(0, -Double.cos(angle), -Double.sin(angle))
      })
    XCTAssertTrue(
      inputs.motionEvents(detectedBy: MovementDirectionDetector()).isEmpty, "seed \(seed)")
  }

  /// A clock that restarts lower (a new timeline) must not block moves until the new clock passes
  /// the old one's refractory time.
  func testAMoveAfterTheClockRestartsLowerIsReported() {
    let seed = testSeed()
    var motion = SyntheticMotion(seed: seed)
    func move(at start: Double) -> (Double) -> SIMD3<Double> {
      { t in
        sharpMove(
          t, start: start, direction: MovementDirection.up.vector, startPeak: 0.5, startWidth: 0.2,
          stopWidth: 0.2)
      }
    }
    let before = motion.samples(from: 100, duration: 1.5, user: move(at: 100.5))
    let after = motion.samples(from: 0, duration: 1.5, user: move(at: 0.5))
    let moves = (before + after).motionEvents(detectedBy: MovementDirectionDetector())
    XCTAssertEqual(moves.map(\.direction), [.up, .up], "seed \(seed)")
    guard moves.count == 2 else { return }
    XCTAssertEqual(moves[0].startTime, 100.5, accuracy: 0.06)
    XCTAssertEqual(moves[1].startTime, 0.5, accuracy: 0.06)
  }
}
