// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest

@testable import MotionEvaluation

/// `CentredGravityReference` on a synthetic device whose true gravity is known: it turns fast
/// (1 rad/s, so a wrong integration convention would smear the window's samples over ±140°) while
/// its user acceleration oscillates, or while it speeds up steadily (the one case where the
/// reference is off, by exactly atan(a/g)).
final class CentredGravityReferenceTests: XCTestCase {
  static let gravity = 9.806_65
  static let period = 0.01
  /// Constant body rate, rad/s (sensor frame).
  static let rate = SIMD3(0.3, -0.5, 0.8) / SIMD3(0.3, -0.5, 0.8).length

  /// Runs 20 s of the device through a 5 s reference and returns every comparison: `first` is the
  /// true gravity direction's angle to the reference, `second` that of a direction tilted by 2°.
  func comparisons(
    userAcceleration: (Double) -> SIMD3<Double>
  ) -> [CentredGravityReference
    .Comparison]
  {
    var reference = CentredGravityReference(windowDuration: 5, samplePeriod: Self.period)
    XCTAssertEqual(reference.halfWidth, 250)
    var earthFromSensor = Quaternion(angle: 0.4, axis: SIMD3(1, 0, 0))
    var results: [CentredGravityReference.Comparison] = []
    for index in 0..<2000 {
      let time = Double(index) * Self.period
      let sensorFromEarth = earthFromSensor.conjugate
      // Specific force: up at rest, plus the user's acceleration (earth frame).
      let force = sensorFromEarth.act(on: SIMD3(0, 0, Self.gravity) + userAcceleration(time))
      let down = sensorFromEarth.act(on: SIMD3(0, 0, -1))
      let tilted = sensorFromEarth.act(
        on: Quaternion(angle: 2 * Units.radiansPerDegree, axis: SIMD3(0, 1, 0))
          .act(on: SIMD3(0, 0, -1)))
      if let result = reference.append(
        rate: Self.rate, interval: Self.period, specificForce: force, estimates: (down, tilted))
      {
        results.append(result)
      }
      earthFromSensor =
        (earthFromSensor * Quaternion(rotationVector: Self.rate * Self.period))
        .normalized
    }
    // The first full window ends at sample 500; from then on every sample gives one comparison.
    XCTAssertEqual(results.count, 2000 - 500)
    return results
  }

  func testOscillatingAccelerationAveragesOutWhileTheDeviceTurns() {
    // 3 m/s² at 2 Hz horizontally and 2 m/s² at 1.9 Hz vertically (footsteps): over 5.01 s the
    // leftover of a sinusoid is at most amplitude / (π f T) ≈ 0.1 m/s², 0.55° (stated tolerance
    // 0.6°); the direction tilted by 2° must read 2° ± 0.6°.
    let results = comparisons { t in
      SIMD3(3 * Double.sin(2 * .pi * 2 * t), 0, 2 * Double.sin(2 * .pi * 1.9 * t))
    }
    let worstTrue = results.map(\.first).max() ?? .infinity
    XCTAssertLessThan(worstTrue, 0.6)
    for result in results {
      XCTAssertEqual(result.second, 2, accuracy: 0.6)
    }
  }

  func testASteadyAccelerationTiltsTheReferenceByItsAngle() {
    // Speeding up at 0.5 m/s² along earth x for the whole recording: the reference is the
    // specific force's direction, atan(0.5 / g) = 2.92° from gravity, in every window (the
    // integration is exact for a constant rate, so only rounding differs: tolerance 1e-6°).
    let results = comparisons { _ in SIMD3(0.5, 0, 0) }
    let expected = Double.atan(0.5 / Self.gravity) / Units.radiansPerDegree
    for result in results {
      XCTAssertEqual(result.first, expected, accuracy: 1e-6)
    }
  }

  func testTheWindowIsBoundedWhateverThePeriod() {
    XCTAssertEqual(CentredGravityReference(windowDuration: 5, samplePeriod: 1e-20).halfWidth, 4096)
    XCTAssertEqual(CentredGravityReference(windowDuration: 5, samplePeriod: .nan).halfWidth, 1)
    XCTAssertEqual(CentredGravityReference(windowDuration: 5, samplePeriod: -1).halfWidth, 1)
    XCTAssertEqual(CentredGravityReference(windowDuration: 5, samplePeriod: 100).halfWidth, 1)
  }
}
