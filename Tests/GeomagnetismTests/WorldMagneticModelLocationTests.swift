// SPDX-License-Identifier: Apache-2.0

import Geomagnetism
import XCTest

/// `GeographicLocation` and the `COREMOTION_LOCATION=lat,lon[,altitude_m]` format.
final class WorldMagneticModelLocationTests: XCTestCase {
  func testParsesLatitudeLongitudeAndAltitude() throws {
    let location = try GeographicLocation(parsing: "48.8584,2.2945,35")
    XCTAssertEqual(location.latitude, 48.8584)
    XCTAssertEqual(location.longitude, 2.2945)
    XCTAssertEqual(location.altitude, 35)
  }

  func testAltitudeDefaultsToZeroAndSpacesAreIgnored() throws {
    let location = try GeographicLocation(parsing: " -33.925 ,\t18.424 ")
    XCTAssertEqual(location, try GeographicLocation(latitude: -33.925, longitude: 18.424))
    XCTAssertEqual(location.altitude, 0)
    XCTAssertFalse(location.isAltitudeKnown, "0 m was not given")
    XCTAssertTrue(try GeographicLocation(parsing: "-33.925,18.424,0").isAltitudeKnown)
    XCTAssertEqual(try GeographicLocation(parsing: "90,-180,-12.5").altitude, -12.5)
    XCTAssertEqual(try GeographicLocation(parsing: "1e1,+2").latitude, 10)
  }

  func testRejectsMalformedText() {
    let cases: [(String, GeographicLocation.ParseError)] = [
      ("", .wrongFieldCount(text: "", count: 1)),
      ("48.8", .wrongFieldCount(text: "48.8", count: 1)),
      ("1,2,3,4", .wrongFieldCount(text: "1,2,3,4", count: 4)),
      ("abc,2", .notANumber(field: "latitude", text: "abc")),
      (",2", .notANumber(field: "latitude", text: "")),
      ("1,", .notANumber(field: "longitude", text: "")),
      ("1,2,high", .notANumber(field: "altitude", text: "high")),
      ("48.8°,2.3", .notANumber(field: "latitude", text: "48.8°")),
      // Decimal commas split into extra fields; the culprit field is named.
      ("48,8;2,3", .notANumber(field: "longitude", text: "8;2")),
    ]
    for (text, expected) in cases {
      XCTAssertThrowsError(try GeographicLocation(parsing: text), "\"\(text)\"") { error in
        XCTAssertEqual(error as? GeographicLocation.ParseError, expected, "\"\(text)\"")
      }
    }
  }

  func testRejectsOutOfRangeValues() {
    func error(_ text: String) -> GeographicLocation.ParseError? {
      do {
        _ = try GeographicLocation(parsing: text)
        return nil
      } catch { return error }
    }
    XCTAssertEqual(error("91,0"), .latitudeOutOfRange(91))
    XCTAssertEqual(error("-90.5,0"), .latitudeOutOfRange(-90.5))
    XCTAssertEqual(error("0,181"), .longitudeOutOfRange(181))
    XCTAssertEqual(error("0,-200"), .longitudeOutOfRange(-200))
    XCTAssertEqual(error("0,0,900000"), .altitudeOutOfRange(900_000))
    XCTAssertEqual(error("0,0,-5000"), .altitudeOutOfRange(-5_000))
    // Non-finite numbers parse as Double but are rejected by the range checks.
    guard case .latitudeOutOfRange(let value)? = error("nan,0") else {
      return XCTFail("nan latitude must be rejected")
    }
    XCTAssertTrue(value.isNaN)
    XCTAssertEqual(error("0,inf"), .longitudeOutOfRange(.infinity))
    // Messages name the problem and the expected format.
    XCTAssertTrue(error("91,0")!.description.contains("latitude"))
    XCTAssertTrue(error("x,0")!.description.contains("COREMOTION_LOCATION=lat,lon[,altitude_m]"))
  }

  func testReadsTheEnvironment() throws {
    XCTAssertNil(try GeographicLocation.fromEnvironment([:]))
    XCTAssertNil(try GeographicLocation.fromEnvironment(["COREMOTION_LOCATION": "  "]))
    XCTAssertEqual(
      try GeographicLocation.fromEnvironment(["COREMOTION_LOCATION": "52.52,13.405,34"]),
      try GeographicLocation(latitude: 52.52, longitude: 13.405, altitude: 34))
    XCTAssertThrowsError(try GeographicLocation.fromEnvironment(["COREMOTION_LOCATION": "52.52"]))
    XCTAssertEqual(GeographicLocation.environmentVariable, "COREMOTION_LOCATION")
  }

  func testDescriptionRoundTrips() throws {
    let location = try GeographicLocation(latitude: -12.25, longitude: 130.875, altitude: 7.5)
    XCTAssertEqual(try GeographicLocation(parsing: location.description), location)
  }
}
