// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import OpenCoreMotion

/// `CMWaterSubmersionManager` and its data classes: a diving app written for Apple's API compiles
/// (a delegate with only the methods it needs, `Measurement` values), submersion is not
/// available, and the data classes keep their values through units, copying and secure coding.
final class CMWaterSubmersionManagerTests: XCTestCase {
  /// A delegate as Apple's sample writes one: two of the four optional methods.
  private final class DepthWatcher: NSObject, CMWaterSubmersionManagerDelegate {
    var measurements = 0
    var events = 0
    func manager(
      _ manager: CMWaterSubmersionManager, didUpdate measurement: CMWaterSubmersionMeasurement
    ) {
      measurements += 1
    }
    func manager(_ manager: CMWaterSubmersionManager, didUpdate event: CMWaterSubmersionEvent) {
      events += 1
    }
  }

  private func roundTrip<T: NSObject & NSSecureCoding>(_ object: T) throws -> T {
    let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
    return try XCTUnwrap(NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data))
  }

  func testSubmersionIsNotAvailableAndTheDelegateIsWeak() {
    XCTAssertFalse(CMWaterSubmersionManager.waterSubmersionAvailable)
    XCTAssertEqual(CMWaterSubmersionManager.authorizationStatus, CMAuthorizationStatus.current)
    let manager = CMWaterSubmersionManager()
    XCTAssertNil(manager.maximumDepth)
    let watcher = DepthWatcher()
    manager.delegate = watcher
    XCTAssertTrue(manager.delegate === watcher)
    XCTAssertEqual(watcher.measurements + watcher.events, 0)
    do {
      let held = DepthWatcher()
      manager.delegate = held
      withExtendedLifetime(held) { XCTAssertNotNil(manager.delegate) }
    }
    XCTAssertNil(manager.delegate)
  }

  func testRawValuesMatchApple() {
    XCTAssertEqual(CMWaterSubmersionEvent.State.unknown.rawValue, 0)
    XCTAssertEqual(CMWaterSubmersionEvent.State.notSubmerged.rawValue, 1)
    XCTAssertEqual(CMWaterSubmersionEvent.State.submerged.rawValue, 2)
    let depthStates: [CMWaterSubmersionMeasurement.DepthState] = [
      .unknown, .notSubmerged, .submergedShallow, .submergedDeep, .approachingMaxDepth,
      .pastMaxDepth, .sensorDepthError,
    ]
    XCTAssertEqual(depthStates.map(\.rawValue), [0, 100, 200, 300, 400, 500, 600])
  }

  func testEventRoundTrip() throws {
    let event = CMWaterSubmersionEvent(
      date: Date(timeIntervalSinceReferenceDate: 700_000_000.25), state: .submerged)
    XCTAssertTrue(event.copy() as AnyObject === event)
    let decoded = try roundTrip(event)
    XCTAssertEqual(decoded.date, event.date)
    XCTAssertEqual(decoded.state, .submerged)
    XCTAssertEqual(CMWaterSubmersionEvent().state, .unknown)
  }

  /// Values given in other units come back in any unit (tolerance 1e-9 relative: one conversion
  /// each way in double precision); the missing depth and water pressure of a measurement taken
  /// out of the water stay missing through coding.
  func testMeasurementUnitsAndRoundTrip() throws {
    let date = Date(timeIntervalSinceReferenceDate: 700_000_000)
    let measurement = CMWaterSubmersionMeasurement(
      date: date, depth: Measurement(value: 10, unit: UnitLength.feet),
      pressure: Measurement(value: 1.3, unit: UnitPressure.bars),
      surfacePressure: Measurement(value: 1013.25, unit: UnitPressure.hectopascals),
      submersionState: .submergedDeep)
    for candidate in [measurement, try roundTrip(measurement)] {
      XCTAssertEqual(candidate.date, date)
      XCTAssertEqual(
        try XCTUnwrap(candidate.depth).converted(to: .meters).value, 3.048, accuracy: 1e-9)
      XCTAssertEqual(
        try XCTUnwrap(candidate.pressure).converted(to: .kilopascals).value, 130, accuracy: 1e-7)
      XCTAssertEqual(
        candidate.surfacePressure.converted(to: .kilopascals).value, 101.325, accuracy: 1e-9)
      XCTAssertEqual(candidate.submersionState, .submergedDeep)
    }

    let surface = CMWaterSubmersionMeasurement(
      date: date, depth: nil, pressure: nil,
      surfacePressure: Measurement(value: 100.9, unit: UnitPressure.kilopascals),
      submersionState: .notSubmerged)
    let decodedSurface = try roundTrip(surface)
    XCTAssertNil(decodedSurface.depth)
    XCTAssertNil(decodedSurface.pressure)
    XCTAssertEqual(decodedSurface.submersionState, .notSubmerged)
  }

  /// The uncertainty is a difference of temperatures: 0.9 °F of it is 0.5 °C, not a temperature
  /// of −17.3 °C (tolerance 1e-12: one multiplication).
  func testTemperatureUncertaintyIsADifference() throws {
    let temperature = CMWaterTemperature(
      date: Date(timeIntervalSinceReferenceDate: 1),
      temperature: Measurement(value: 68, unit: UnitTemperature.fahrenheit),
      temperatureUncertainty: Measurement(value: 0.9, unit: UnitTemperature.fahrenheit))
    for candidate in [temperature, try roundTrip(temperature)] {
      XCTAssertEqual(candidate.temperature.converted(to: .celsius).value, 20, accuracy: 1e-9)
      XCTAssertEqual(
        candidate.temperatureUncertainty.converted(to: .celsius).value, 0.5, accuracy: 1e-12)
    }
    let inKelvin = CMWaterTemperature(
      date: Date(timeIntervalSinceReferenceDate: 1),
      temperature: Measurement(value: 290, unit: UnitTemperature.kelvin),
      temperatureUncertainty: Measurement(value: 0.2, unit: UnitTemperature.kelvin))
    XCTAssertEqual(inKelvin.temperatureUncertainty.value, 0.2, accuracy: 1e-12)
    XCTAssertEqual(inKelvin.temperature.converted(to: .celsius).value, 16.85, accuracy: 1e-9)
  }
}
