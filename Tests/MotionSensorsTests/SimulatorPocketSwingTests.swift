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

  /// `cycle`, from the simulator's ground truth: the pocket turns with the thigh about the hip, so
  /// it is highest, and furthest forward, when the knee is up (the thigh turned furthest up,
  /// negatively about the rider's left). Over the middle 45 s (54 turns) the thigh's turn and the
  /// pocket's height and forward travel (each less its mean) must move against each other almost
  /// exactly. Before 2026-11-30 the height led the turn by a quarter of a pedal turn: its
  /// correlation with the turn was about 0, the pocket highest at mid-swing.
  func testAPedallingPocketIsHighestWithTheKneeUp() throws {
    let scenario = try noiselessScenario("cycle")
    let trajectory = ScenarioTrajectory(scenario: scenario)
    let ride = try XCTUnwrap(trajectory.events.first { $0.kind == .cycle })
    XCTAssertLessThanOrEqual(ride.start, 10)
    XCTAssertGreaterThanOrEqual(ride.end, 55)
    let times = stride(from: 10.0, to: 55.0, by: 0.01).map { $0 }
    let states = times.map { trajectory.state(at: $0) }
    let up = SIMD3<Double>(0, 0, 1)
    let travel = states.last!.position - states.first!.position
    let forward = SIMD3(travel.x, travel.y, 0) / SIMD3(travel.x, travel.y, 0).length
    let left = SIMD3(
      up.y * forward.z - up.z * forward.y, up.z * forward.x - up.x * forward.z,
      up.x * forward.y - up.y * forward.x)
    // The turn about the rider's left (earth frame) from the first attitude: the thigh turns about
    // the hip's axis only, so this is its whole turn.
    let reference = states[0].earthFromSensor
    let turn = states.map { state -> Double in
      let q = (state.earthFromSensor * reference.conjugate).canonicalized
      let axis = q.imaginary
      return 2 * Double.atan2((axis * left).sum(), q.w)
    }
    let height = states.map(\.position.z)
    // Forward travel less the steady riding speed: the pocket's swing along the ride.
    let speed = (travel * forward).sum() / (times.last! - times.first!)
    let along = zip(states, times).map { state, time in
      ((state.position - states[0].position) * forward).sum() - speed * (time - times[0])
    }
    func correlation(_ a: [Double], _ b: [Double]) -> Double {
      let meanA = a.reduce(0, +) / Double(a.count)
      let meanB = b.reduce(0, +) / Double(b.count)
      var ab = 0.0
      var aa = 0.0
      var bb = 0.0
      for (x, y) in zip(a, b) {
        ab += (x - meanA) * (y - meanB)
        aa += (x - meanA) * (x - meanA)
        bb += (y - meanB) * (y - meanB)
      }
      return ab / (aa * bb).squareRoot()
    }
    XCTAssertGreaterThan(
      turn.max()! - turn.min()!, 0.7, "the thigh turns about ±25° about the left")
    XCTAssertLessThan(correlation(turn, height), -0.9, "cycle: the pocket highest with the knee up")
    XCTAssertLessThan(
      correlation(turn, along), -0.9, "cycle: the pocket furthest forward with the knee up")
  }
}
