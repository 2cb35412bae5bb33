// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import OpenCoreMotion

/// Raw values, handler shapes, copying and secure coding of the pedometer, activity, altitude and
/// recorder data classes.
final class HistoryDataCodingTests: XCTestCase {
  private func roundTrip<T: NSObject & NSSecureCoding>(_ object: T) throws -> T {
    let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
    return try XCTUnwrap(NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data))
  }

  func testRawValuesMatchApple() {
    XCTAssertEqual(CMAuthorizationStatus.notDetermined.rawValue, 0)
    XCTAssertEqual(CMAuthorizationStatus.restricted.rawValue, 1)
    XCTAssertEqual(CMAuthorizationStatus.denied.rawValue, 2)
    XCTAssertEqual(CMAuthorizationStatus.authorized.rawValue, 3)
    XCTAssertEqual(CMPedometerEventType.pause.rawValue, 0)
    XCTAssertEqual(CMPedometerEventType.resume.rawValue, 1)
    XCTAssertEqual(CMMotionActivityConfidence.low.rawValue, 0)
    XCTAssertEqual(CMMotionActivityConfidence.medium.rawValue, 1)
    XCTAssertEqual(CMMotionActivityConfidence.high.rawValue, 2)
    XCTAssertEqual(CMAuthorizationStatus.fromEnvironment([:]), .authorized)
    XCTAssertEqual(
      CMAuthorizationStatus.fromEnvironment(["COREMOTION_AUTHORIZATION": "Denied"]), .denied)
    XCTAssertEqual(
      CMAuthorizationStatus.fromEnvironment(["COREMOTION_AUTHORIZATION": "restricted"]), .restricted
    )
    XCTAssertEqual(
      CMAuthorizationStatus.fromEnvironment(["COREMOTION_AUTHORIZATION": "bogus"]), .authorized)
  }

  func testHandlerShapes() {
    let _: CMPedometerHandler = { (_: CMPedometerData?, _: (any Error)?) in }
    let _: CMPedometerEventHandler = { (_: CMPedometerEvent?, _: (any Error)?) in }
    let _: CMMotionActivityHandler = { (_: CMMotionActivity?) in }
    let _: CMMotionActivityQueryHandler = { (_: [CMMotionActivity]?, _: (any Error)?) in }
    let _: CMAltitudeHandler = { (_: CMAltitudeData?, _: (any Error)?) in }
    let _: CMAbsoluteAltitudeHandler = { (_: CMAbsoluteAltitudeData?, _: (any Error)?) in }
    let _: CMStepQueryHandler = { (_: Int, _: (any Error)?) in }
    let _: CMStepUpdateHandler = { (_: Int, _: Date, _: (any Error)?) in }
  }

  /// The rotation-rate and pressure classes Apple's batched and recorded APIs deliver (nothing
  /// here produces them): their values, the class hierarchy, copying and secure coding.
  func testRecordedRotationRateAndPressureDataRoundTrip() throws {
    let date = Date(timeIntervalSinceReferenceDate: 123_456.5)
    let rate = try roundTrip(
      CMRecordedRotationRateData(
        rotationRate: CMRotationRate(x: 0.5, y: -1.25, z: 3), timestamp: 11, startDate: date))
    XCTAssertEqual(rate.rotationRate.x, 0.5)
    XCTAssertEqual(rate.rotationRate.y, -1.25)
    XCTAssertEqual(rate.rotationRate.z, 3)
    XCTAssertEqual(rate.timestamp, 11)
    XCTAssertEqual(rate.startDate, date)
    XCTAssertTrue((rate as CMLogItem) is CMRotationRateData)
    XCTAssertEqual(CMRotationRateData().rotationRate.z, 0)

    // Made in hectopascals and kelvin, read back in any unit: archives keep kPa and °C.
    let pressure = try roundTrip(
      CMRecordedPressureData(
        pressure: Measurement(value: 1013.25, unit: .hectopascals),
        temperature: Measurement(value: 300.15, unit: .kelvin), timestamp: 12, startDate: date,
        identifier: .max))
    XCTAssertEqual(pressure.pressure.converted(to: .kilopascals).value, 101.325, accuracy: 1e-9)
    XCTAssertEqual(pressure.temperature.converted(to: .celsius).value, 27, accuracy: 1e-9)
    XCTAssertEqual(pressure.timestamp, 12)
    XCTAssertEqual(pressure.startDate, date)
    XCTAssertEqual(pressure.identifier, .max)
    XCTAssertTrue(pressure.copy() as AnyObject === pressure)
    XCTAssertTrue(CMAmbientPressureData.supportsSecureCoding)
    XCTAssertEqual(CMAmbientPressureData().pressure.value, 0)
  }

  func testPedometerDataRoundTrip() throws {
    let start = Date(timeIntervalSinceReferenceDate: 1000)
    let data = CMPedometerData(
      startDate: start, endDate: start.addingTimeInterval(60), numberOfSteps: 97, distance: 70.5,
      floorsAscended: 2, floorsDescended: 0, currentPace: 0.8, currentCadence: 1.9,
      averageActivePace: 0.85)
    XCTAssertTrue(CMPedometerData.supportsSecureCoding)
    XCTAssertTrue(data.copy() as AnyObject === data)
    let decoded = try roundTrip(data)
    XCTAssertEqual(decoded.startDate, data.startDate)
    XCTAssertEqual(decoded.endDate, data.endDate)
    XCTAssertEqual(decoded.numberOfSteps, 97)
    XCTAssertEqual(decoded.distance, 70.5)
    XCTAssertEqual(decoded.floorsAscended, 2)
    XCTAssertEqual(decoded.floorsDescended, 0)
    XCTAssertEqual(decoded.currentPace, 0.8)
    XCTAssertEqual(decoded.currentCadence, 1.9)
    XCTAssertEqual(decoded.averageActivePace, 0.85)
    // Absent values stay absent.
    let sparse = try roundTrip(CMPedometerData(startDate: start, endDate: start, numberOfSteps: 0))
    XCTAssertNil(sparse.distance)
    XCTAssertNil(sparse.floorsAscended)
    XCTAssertNil(sparse.currentPace)
    XCTAssertEqual(CMPedometerData().numberOfSteps, 0)
  }

  /// A NaN date (an archive from outside, a daemon's answer, an app's mock) is kept as it is,
  /// and describing the object no longer traps: `Date.description` does on NaN, and every data
  /// class's description printed its date with it.
  /// An archive is outside input: floors that are no count (NaN, infinite, negative, fractional,
  /// beyond `Int`) used to decode through `NSNumber.intValue` as -9.2e18 floors, and now make the
  /// decoding fail. The archive is edited where the pedometer data's fields are stored.
  func testPedometerDataWhoseFloorsAreNoCountIsNotDecoded() throws {
    let data = try NSKeyedArchiver.archivedData(
      withRootObject: CMPedometerData(
        startDate: Date(timeIntervalSince1970: 0), endDate: Date(timeIntervalSince1970: 60),
        numberOfSteps: 80, floorsAscended: 2, floorsDescended: 1),
      requiringSecureCoding: true)
    func edited(_ key: String, _ value: Double) throws -> Data {
      var format = PropertyListSerialization.PropertyListFormat.binary
      var archive = try XCTUnwrap(
        PropertyListSerialization.propertyList(from: data, options: [], format: &format)
          as? [String: Any])
      var objects = try XCTUnwrap(archive["$objects"] as? [Any])
      let index = try XCTUnwrap(objects.firstIndex { ($0 as? [String: Any])?[key] != nil })
      var fields = try XCTUnwrap(objects[index] as? [String: Any])
      fields[key] = value
      objects[index] = fields
      archive["$objects"] = objects
      return try PropertyListSerialization.data(
        fromPropertyList: archive, format: format, options: 0)
    }
    let unedited = try XCTUnwrap(
      NSKeyedUnarchiver.unarchivedObject(
        ofClass: CMPedometerData.self, from: try edited("floorsAscended", 3)))
    XCTAssertEqual(unedited.floorsAscended, 3)
    XCTAssertEqual(unedited.floorsDescended, 1)
    for key in ["floorsAscended", "floorsDescended"] {
      for value in [Double.nan, .infinity, -1, 2.5, 1e30] {
        let decoded = try? NSKeyedUnarchiver.unarchivedObject(
          ofClass: CMPedometerData.self, from: try edited(key, value))
        XCTAssertNil(
          decoded, "\(key) = \(value) gave \(String(describing: decoded?.floorsAscended))")
      }
    }
  }

  func testADataObjectWithANaNDateDecodesAndDescribesItself() throws {
    let nan = Date(timeIntervalSinceReferenceDate: .nan)
    let kilopascals = Measurement(value: 101, unit: UnitPressure.kilopascals)
    let celsius = Measurement(value: 20, unit: UnitTemperature.celsius)
    let objects: [NSObject] = [
      try roundTrip(CMPedometerData(startDate: nan, endDate: nan, numberOfSteps: 1)),
      try roundTrip(CMPedometerEvent(date: nan, type: .pause)),
      try roundTrip(CMMotionActivity(walking: true, startDate: nan, timestamp: 1)),
      try roundTrip(
        CMRecordedAccelerometerData(
          acceleration: CMAcceleration(x: 0, y: 0, z: -1), timestamp: 1, startDate: nan,
          identifier: 1)),
      try roundTrip(
        CMRecordedPressureData(
          pressure: kilopascals, temperature: celsius, timestamp: 1, startDate: nan,
          identifier: 1)),
      try roundTrip(
        CMRecordedRotationRateData(
          rotationRate: CMRotationRate(x: 0, y: 0, z: 0), timestamp: 1, startDate: nan)),
      try roundTrip(CMWaterSubmersionEvent(date: nan, state: .submerged)),
      try roundTrip(
        CMWaterSubmersionMeasurement(
          date: nan, depth: nil, pressure: nil, surfacePressure: kilopascals,
          submersionState: .notSubmerged)),
      try roundTrip(
        CMWaterTemperature(date: nan, temperature: celsius, temperatureUncertainty: celsius)),
    ]
    for object in objects {
      XCTAssertTrue(object.description.contains("NaN date"), "\(type(of: object))")
    }
  }

  func testEventActivityAltitudeAndRecordedDataRoundTrip() throws {
    let date = Date(timeIntervalSinceReferenceDate: 5000)
    let event = try roundTrip(CMPedometerEvent(date: date, type: .resume))
    XCTAssertEqual(event.date, date)
    XCTAssertEqual(event.type, .resume)

    let activity = try roundTrip(
      CMMotionActivity(
        stationary: true, automotive: true, confidence: .high, startDate: date, timestamp: 42))
    XCTAssertTrue(activity.stationary && activity.automotive, "flags are not exclusive")
    XCTAssertFalse(activity.walking || activity.running || activity.cycling || activity.unknown)
    XCTAssertEqual(activity.confidence, .high)
    XCTAssertEqual(activity.startDate, date)
    XCTAssertEqual(activity.timestamp, 42)

    let altitude = try roundTrip(
      CMAltitudeData(relativeAltitude: 3.25, pressure: 100.9, timestamp: 7))
    XCTAssertEqual(altitude.relativeAltitude, 3.25)
    XCTAssertEqual(altitude.pressure, 100.9)
    XCTAssertEqual(altitude.timestamp, 7)

    let absolute = try roundTrip(
      CMAbsoluteAltitudeData(altitude: 321, accuracy: 10, precision: 0.1, timestamp: 8))
    XCTAssertEqual(absolute.altitude, 321)
    XCTAssertEqual(absolute.accuracy, 10)
    XCTAssertEqual(absolute.precision, 0.1)

    let recorded = try roundTrip(
      CMRecordedAccelerometerData(
        acceleration: CMAcceleration(x: 0.1, y: 0, z: -1), timestamp: 9, startDate: date,
        identifier: .max - 1))
    XCTAssertEqual(recorded.identifier, .max - 1)
    XCTAssertEqual(recorded.startDate, date)
    XCTAssertEqual(recorded.acceleration.z, -1)
    XCTAssertEqual(recorded.timestamp, 9)
  }
}
