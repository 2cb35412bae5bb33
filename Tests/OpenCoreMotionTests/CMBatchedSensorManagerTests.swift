// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import SourceComposition
import XCTest

@testable import OpenCoreMotion

/// `CMBatchedSensorManager` on the simulator at 100 Hz: one batch per second of source time with
/// every sample in it, nothing lost or repeated between batches, pull mode, stop, and a source
/// without the sensor.
final class CMBatchedSensorManagerTests: XCTestCase {
  private func manager(clock: VirtualClock) -> CMBatchedSensorManager {
    CMBatchedSensorManager(
      source: HistoryFixture.player(HistoryFixture.walkScenario(), clock: clock))
  }

  /// Checks that `batches` hold consecutive 100 Hz samples, 100 per batch.
  private func assertContiguous(
    _ batches: [[Double]], file: StaticString = #filePath, line: UInt = #line
  ) {
    let all = batches.flatMap { $0 }
    for batch in batches {
      XCTAssertEqual(batch.count, 100, "one second at 100 Hz", file: file, line: line)
    }
    for (a, b) in zip(all, all.dropFirst()) {
      // Consecutive samples 10 ms apart, within the simulated phone's timestamp jitter (under
      // 1 ms): none lost (20 ms) or repeated (0 ms) at the batch edges.
      XCTAssertEqual(b - a, 0.01, accuracy: 0.002, file: file, line: line)
    }
  }

  func testAccelerometerBatchesHoldEverySampleOfEachSecond() {
    let clock = VirtualClock()
    let manager = manager(clock: clock)
    XCTAssertEqual(manager.accelerometerDataFrequency, 100)
    XCTAssertEqual(manager.deviceMotionDataFrequency, 100)
    let batches = Locked<[[Double]]>([])
    manager.startAccelerometerUpdates { samples, error in
      XCTAssertNil(error)
      if let samples { batches.withLock { $0.append(samples.map(\.timestamp)) } }
    }
    XCTAssertTrue(manager.isAccelerometerActive)
    clock.advance(by: 5.5)
    drain(manager.handlerQueue)
    let received = batches.withLock { $0 }
    XCTAssertEqual(received.count, 5)
    assertContiguous(received)
    // Acceleration in g: over a second of walking the magnitude averages about 1 g.
    var sum = 0.0
    let latest = manager.accelerometerBatch ?? []
    for sample in latest {
      let a = sample.acceleration
      sum += (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
    }
    XCTAssertEqual(sum / Double(max(latest.count, 1)), 1, accuracy: 0.1)

    manager.stopAccelerometerUpdates()
    XCTAssertFalse(manager.isAccelerometerActive)
    clock.advance(by: 3)
    drain(manager.handlerQueue)
    XCTAssertEqual(batches.withLock { $0.count }, 5, "no handler after the stop")
  }

  func testDeviceMotionBatchesInPullMode() {
    let clock = VirtualClock()
    let manager = manager(clock: clock)
    XCTAssertNil(manager.deviceMotionBatch)
    manager.startDeviceMotionUpdates()
    XCTAssertTrue(manager.isDeviceMotionActive)
    clock.advance(by: 1.5)
    let first = manager.deviceMotionBatch?.map(\.timestamp) ?? []
    clock.advance(by: 1)
    let second = manager.deviceMotionBatch?.map(\.timestamp) ?? []
    assertContiguous([first, second])
    // Device motion splits gravity from the user's acceleration: gravity is 1 g.
    let gravity = manager.deviceMotionBatch?.last?.gravity
    let norm = gravity.map { ($0.x * $0.x + $0.y * $0.y + $0.z * $0.z).squareRoot() }
    XCTAssertEqual(norm ?? 0, 1, accuracy: 1e-6)
    manager.stopDeviceMotionUpdates()
    XCTAssertFalse(manager.isDeviceMotionActive)
  }

  func testWithoutTheSensorStartingHasNoEffect() {
    let clock = VirtualClock()
    let manager = CMBatchedSensorManager(source: HistoryFixture.gyroscopeOnly(clock: clock))
    let calls = Locked(0)
    manager.startAccelerometerUpdates { _, _ in calls.withLock { $0 += 1 } }
    manager.startDeviceMotionUpdates { _, _ in calls.withLock { $0 += 1 } }
    XCTAssertFalse(manager.isAccelerometerActive)
    XCTAssertFalse(manager.isDeviceMotionActive)
    clock.advance(by: 3)
    drain(manager.handlerQueue)
    XCTAssertEqual(calls.withLock { $0 }, 0)
    XCTAssertNil(manager.accelerometerBatch)
  }

  func testClassSupportFollowsTheDefaultSource() {
    let sensors = SourceFactory.defaultSource.availableSensors
    XCTAssertEqual(
      CMBatchedSensorManager.isAccelerometerSupported, sensors.contains(.accelerometer))
    XCTAssertEqual(
      CMBatchedSensorManager.isDeviceMotionSupported, sensors.isSuperset(of: .inertial))
    XCTAssertEqual(CMBatchedSensorManager.authorizationStatus, CMAuthorizationStatus.current)
    let _: CMBatchedSensorManager.AccelerometerHandler = {
      (_: [CMAccelerometerData]?, _: (any Error)?) in
    }
    let _: CMBatchedSensorManager.DeviceMotionHandler = { (_: [CMDeviceMotion]?, _: (any Error)?) in
    }
  }
}
