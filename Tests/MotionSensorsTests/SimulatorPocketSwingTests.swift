// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest

@testable import MotionSensors

/// A phone in a trouser pocket turns with the thigh, which hangs from the hip: as the pocket swings
/// forward, the knee leads and the phone's top (towards the hip) tilts back. Turning and moving
/// together that way, the swing's acceleration and gravity's share across the phone largely
/// cancel; tilting the top forward as the pocket swings forward (a pivot below the phone) adds
/// them instead, and the accelerometer sees the phone turn far more than it does.
final class SimulatorPocketSwingTests: XCTestCase {
  /// In a pocket in portrait, with the screen towards the thigh, the phone's z axis lies across the
  /// thigh in the plane the thigh swings in (the walker's forward and up); x is along the hip.
  private struct Swing {
    /// Amplitude of the specific force along z at the swing's frequency (m/s²): the part of the
    /// force across the phone that the thigh's swing makes.
    var across: Double
    /// 1 − |mean a| / mean |a| over the window: 0 for a phone that keeps its attitude and grows
    /// with the turning the accelerometer sees.
    var orientationChange: Double
  }

  /// The noiseless scenario's accelerometer over [start, end), which spans whole swings.
  private func swing(
    _ name: String, frequency: Double, from start: Double, to end: Double
  ) throws -> Swing {
    let samples = try simulate(noiselessScenario(name))
      .filter { $0.timestamp >= start && $0.timestamp < end }
    let forces = samples.compactMap(\.accelerometer)
    XCTAssertGreaterThan(forces.count, 100, name)
    var cosine = 0.0
    var sine = 0.0
    for sample in samples {
      guard let force = sample.accelerometer else { continue }
      let phase = 2 * Double.pi * frequency * sample.timestamp
      cosine += force.z * Double.cos(phase)
      sine += force.z * Double.sin(phase)
    }
    let mean = forces.reduce(SIMD3<Double>.zero, +) / Double(forces.count)
    let meanMagnitude = forces.map(\.length).reduce(0, +) / Double(forces.count)
    return Swing(
      across: 2 * (cosine * cosine + sine * sine).squareRoot() / Double(forces.count),
      orientationChange: 1 - mean.length / meanMagnitude)
  }

  /// `walkPocket`: 30 s of walking from 2 s at 1.8 steps/s; the middle 20 s (18 strides), clear of
  /// the ramps. Measured: a swing across the phone of 6.4 m/s² and an orientation change of 0.18
  /// with the top tilting forward, 1.0 m/s² and 0.062 now. What orientation change is left is the
  /// surge at the step frequency (0.04 m, 5 m/s² along the walk): it turns nothing, but a force
  /// that size across gravity gives about 0.06 on its own.
  func testAWalkingPocketTiltsBackAsItSwingsForward() throws {
    let result = try swing("walkPocket", frequency: 0.9, from: 7, to: 27)
    XCTAssertLessThan(result.across, 2, "walkPocket: the swing across the phone")
    XCTAssertLessThan(result.orientationChange, 0.1, "walkPocket")
  }

  /// `cycle`: 60 s of pedalling from 3 s at 1.2 turns/s; the middle 45 s (54 turns). Measured:
  /// 7.4 m/s² and 0.15 with the top tilting forward, 1.0 m/s² and 0.003 now.
  func testAPedallingThighTiltsBackAsThePocketMovesForward() throws {
    let result = try swing("cycle", frequency: 1.2, from: 10, to: 55)
    XCTAssertLessThan(result.across, 2, "cycle: the swing across the phone")
    XCTAssertLessThan(result.orientationChange, 0.05, "cycle")
  }
}
