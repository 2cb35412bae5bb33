// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest
import _MotionTestSupport

@testable import OpenCoreMotion

/// Through the API: a floor walked out of a car park right after a drive is in
/// `CMPedometerData.floorsAscended`, although the pedometer counts that walk's first steps only
/// once it is sure it is a walk (docs/Steps.md, late steps). Simulator, on a virtual clock.
final class CMPedometerFloorsAfterADriveTests: XCTestCase {
  func testAFloorWalkedRightAfterADriveIsCounted() throws {
    // A 90 s drive (3–93 s), 2 s by the car, one floor up the stairs (95–102 s), 20 s on the
    // level.
    let scenario = try Scenario.named("carPark")
    for seed: UInt64 in [1, 2] {
      let clock = VirtualClock()
      let player = StreamPlayer(
        SimulatedSensorStream(scenario: scenario, seed: seed), pacing: .virtual(clock))
      let pedometer = CMPedometer(backend: HistoryFixture.history(player))
      clock.advance(by: 200)
      let whole = try query(pedometer, from: 0, to: 200, seed: seed)
      // The walk's steps are counted (7 s of stairs and 20 s on the level at 1.8 steps/s).
      XCTAssertGreaterThan(whole.numberOfSteps.intValue, 35, "seed \(seed)")
      XCTAssertEqual(whole.floorsAscended?.intValue, 1, "seed \(seed)")
      XCTAssertEqual(whole.floorsDescended?.intValue, 0, "seed \(seed)")
      // Filed when it was walked: within the walk (the climb is 95–102 s; the floor counts
      // once the level has settled after it), not during the drive.
      let drive = try query(pedometer, from: 0, to: 94, seed: seed)
      XCTAssertEqual(drive.floorsAscended?.intValue, 0, "seed \(seed)")
      let walk = try query(pedometer, from: 94, to: 122, seed: seed)
      XCTAssertEqual(walk.floorsAscended?.intValue, 1, "seed \(seed)")
    }
  }

  /// `queryPedometerData` from `start` to `end` s of the run.
  private func query(
    _ pedometer: CMPedometer, from start: Double, to end: Double, seed: UInt64
  ) throws -> CMPedometerData {
    let result = Locked<(CMPedometerData?, (any Error)?)>((nil, nil))
    let done = expectation(description: "query")
    pedometer.queryPedometerData(
      from: HistoryFixture.date(start), to: HistoryFixture.date(end)
    ) { data, error in
      result.withLock { $0 = (data, error) }
      done.fulfill()
    }
    wait(for: [done], timeout: 30)
    let (data, error) = result.withLock { $0 }
    XCTAssertNil(error, "seed \(seed), \(start)…\(end) s")
    return try XCTUnwrap(data, "seed \(seed), \(start)…\(end) s")
  }
}
