// SPDX-License-Identifier: Apache-2.0

import MotionMath
import XCTest
import _MotionTestSupport

@testable import MotionSensors

/// A built-in scenario with perfect sensors, optionally cut to `duration` seconds.
func noiselessScenario(_ name: String, duration: Double? = nil) throws -> Scenario {
  var scenario = try Scenario.named(name)
  scenario.noise = .noiseless
  if let duration { scenario.duration = duration }
  return scenario
}

/// The trajectory's state at the instant a sample stamped `timestamp` reads: the middle of the
/// sample interval that ends at its timestamp (the simulator's sensors report the interval's mean,
/// which the middle gives to second order).
/// `trajectory` is the scenario's, built once by the caller: building one per sample made a pass
/// over the long activity scenarios take two minutes.
func sensedState(
  _ scenario: Scenario, _ trajectory: ScenarioTrajectory, at timestamp: Double
) -> KinematicState {
  trajectory.state(at: Swift.max(timestamp - 0.5 / scenario.sampleRate, 0))
}

/// Every sample of a scenario.
func simulate(_ scenario: Scenario, seed: UInt64? = nil) throws -> [MotionSample] {
  var stream = SimulatedSensorStream(scenario: scenario, seed: seed)
  return try stream.collect()
}

/// Asserts `actual` is within `accuracy` of `expected` in distance (``assertDistanceWithin``).
func assertVectorsEqual(
  _ actual: SIMD3<Double>?, _ expected: SIMD3<Double>, accuracy: Double,
  _ message: @autoclosure () -> String = "",
  file: StaticString = #filePath, line: UInt = #line
) {
  assertDistanceWithin(actual, expected, tolerance: accuracy, message(), file: file, line: line)
}
