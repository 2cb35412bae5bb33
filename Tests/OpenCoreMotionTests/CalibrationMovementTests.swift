// SPDX-License-Identifier: Apache-2.0

import Foundation
import Geomagnetism
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// `CMErrorDeviceRequiresMovement`: reported once per run for frames that rely on an uncalibrated
/// magnetometer, never for the arbitrary frame, and updates carry on.
final class CalibrationMovementTests: XCTestCase {
  private func run(
    _ frame: CMAttitudeReferenceFrame, scenario: String = "figure8"
  ) throws -> (updates: Int, errors: [NSError]) {
    let clock = VirtualClock()
    let source = StreamPlayer(
      SimulatedSensorStream(scenario: try Scenario.named(scenario)), pacing: .virtual(clock))
    let manager = CMMotionManager(source: source)
    let queue = makeSerialQueue()
    let updates = Collector<CMDeviceMotion>()
    let errors = Collector<NSError>()
    manager.deviceMotionUpdateInterval = 0.1
    manager.startDeviceMotionUpdates(using: frame, to: queue) { motion, error in
      if let motion { updates.append(motion) }
      if let error { errors.append(error as NSError) }
    }
    clock.advance(by: 30)
    queue.waitUntilAllOperationsAreFinished()
    manager.stopDeviceMotionUpdates()
    return (updates.all.count, errors.all)
  }

  func testNorthFrameAsksForMovementOnceAndKeepsDelivering() throws {
    let (updates, errors) = try run(.xMagneticNorthZVertical)
    XCTAssertEqual(errors.count, 1, "\(errors)")
    XCTAssertEqual(errors.first?.domain, CMErrorDomain)
    XCTAssertEqual(errors.first?.code, Int(CMErrorDeviceRequiresMovement.rawValue))
    // The figure 8 lasts 26 s; at 10 Hz nearly all of it is delivered after the request.
    XCTAssertGreaterThan(updates, 200)
  }

  func testArbitraryFrameNeverAsksForMovement() throws {
    let (updates, errors) = try run(.xArbitraryZVertical)
    XCTAssertEqual(errors, [])
    XCTAssertGreaterThan(updates, 200)
  }
}

/// `CMMotionManager.deviceLocation`: the app-provided location that enables true north.
final class DeviceLocationTests: XCTestCase {
  override func tearDown() {
    CMMotionManager.deviceLocation = nil
    super.tearDown()
  }

  func testSettingALocationMakesTrueNorthAvailable() throws {
    let source = StreamPlayer(
      SimulatedSensorStream(scenario: try Scenario.named("flat")), pacing: .virtual(VirtualClock()))
    CMMotionManager.deviceLocation = nil
    let without = CMMotionManager(source: source).supportedAttitudeReferenceFrames
    // The test process has no COREMOTION_LOCATION, so true north depends on the app alone.
    if ProcessInfo.processInfo.environment["COREMOTION_LOCATION"] == nil {
      XCTAssertFalse(without.contains(.xTrueNorthZVertical))
    }
    // Boulder, Colorado: WMM2025 puts the declination a few degrees east (about +7.5° in 2026).
    CMMotionManager.deviceLocation = try GeographicLocation(
      latitude: 40.015, longitude: -105.27, altitude: 1655)
    let with = CMMotionManager(source: source).supportedAttitudeReferenceFrames
    XCTAssertTrue(with.contains(.xTrueNorthZVertical))
    let declination = try XCTUnwrap(CMMotionManager.currentDeclination())
    XCTAssertEqual(declination, 7.5, accuracy: 1.5)
  }

  /// Apps set the location from whatever thread their GPS answers on: after concurrent sets, the
  /// declination in use is the one at the location that won, never a location paired with another
  /// set's declination (which turned true north by the wrong angle until the next set).
  func testConcurrentSetsKeepTheLocationAndItsDeclinationTogether() throws {
    try XCTSkipIf(
      ProcessInfo.processInfo.environment["COREMOTION_LOCATION"] != nil,
      "needs no COREMOTION_LOCATION: a nil location must mean no declination")
    // Declinations far apart (WMM2025, 2026), so a mismatch cannot hide in the tolerance; nil
    // (fall back to the environment, which has no location) widens the race: it reads the
    // environment between its two stores.
    let locations: [GeographicLocation?] = try [
      GeographicLocation(latitude: 40.015, longitude: -105.27, altitude: 1655),  // Boulder, ≈ +7.5°
      GeographicLocation(latitude: 47.61, longitude: -122.33, altitude: 50),  // Seattle, ≈ +15°
      nil,
      GeographicLocation(latitude: 48.85, longitude: 2.29, altitude: 35),  // Paris, ≈ +1.5°
      GeographicLocation(latitude: 40.71, longitude: -74.01, altitude: 10),  // New York, ≈ -12.5°
    ]
    let rounds = 5000
    var mismatches = 0
    for round in 0..<rounds {
      DispatchQueue.concurrentPerform(iterations: 4) { index in
        for step in 0..<8 {
          CMMotionManager.deviceLocation = locations[(index * 3 + round + step) % locations.count]
        }
      }
      let declination = CMMotionManager.currentDeclination()
      let expected = CMMotionManager.deviceLocation.map {
        magneticDeclination(at: $0, date: Date())
      }
      // 0.01°: the two dates differ by microseconds and the declination drifts ~0.1° a year.
      if let declination, let expected, abs(declination - expected) <= 0.01 { continue }
      if declination == nil, expected == nil { continue }
      mismatches += 1
    }
    XCTAssertEqual(
      mismatches, 0, "rounds of \(rounds) that left a location with another's declination")
  }
}
