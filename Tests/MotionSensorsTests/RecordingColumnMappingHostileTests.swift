// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// Column mappings from a review: `units=mg` was always read as milligauss, even for a mapping
/// with accelerometer columns only (whose values then kept a scale of 1, i.e. 1000 mg read as
/// 1000 m/s²), and a mapping's public properties set in code trapped when opening a file
/// (`skipLines = -1` ranged `0..<-1`; a two-column vector indexed a third).
final class RecordingColumnMappingHostileTests: XCTestCase {
  private let g = 9.80665

  /// `mg` follows the columns present: milli-g for accelerometer columns alone, milligauss for
  /// magnetometer columns alone (as before), and an error naming both readings when the mapping
  /// has both; `acc=mg` and `mag=mg` say it explicitly.
  func testMgIsResolvedByTheColumnsPresent() throws {
    let acceleration = try ColumnMapping(parsing: "t=t,ax=x,ay=y,az=z;units=mg")
    XCTAssertEqual(acceleration.accelerationScale, g / 1000, accuracy: 1e-15)
    XCTAssertEqual(acceleration.magneticFieldScale, 1)
    let appleSign = try ColumnMapping(parsing: "t=t,ax=x,ay=y,az=z;units=-mg")
    XCTAssertEqual(appleSign.accelerationScale, -g / 1000, accuracy: 1e-15)

    let field = try ColumnMapping(parsing: "t=t,mx=x,my=y,mz=z;units=mg")
    XCTAssertEqual(field.magneticFieldScale, 0.1, accuracy: 1e-15)
    XCTAssertEqual(field.accelerationScale, 1)

    XCTAssertThrowsError(
      try ColumnMapping(parsing: "t=t,ax=a,ay=b,az=c,mx=x,my=y,mz=z;units=mg")
    ) { error in
      XCTAssertEqual((error as? RecordingError)?.kind, .malformedHeader)
      XCTAssertTrue("\(error)".contains("ambiguous") && "\(error)".contains("acc=mg"), "\(error)")
    }
    let both = try ColumnMapping(parsing: "t=t,ax=a,ay=b,az=c,mx=x,my=y,mz=z;acc=mg;mag=mg")
    XCTAssertEqual(both.accelerationScale, g / 1000, accuracy: 1e-15)
    XCTAssertEqual(both.magneticFieldScale, 0.1, accuracy: 1e-15)
  }

  /// An accelerometer logged in milli-g reads back in m/s²: 1000 mg up at rest is 9.80665 m/s².
  func testAMilliGRecordingReadsAsSpecificForce() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write("t,x,y,z\n0,0,0,1000\n0.01,0,0,1000\n", to: "mg.csv")
    let mapping = try ColumnMapping(parsing: "t=t,ax=x,ay=y,az=z;units=mg")
    let samples = try RecordingReader.readSamples(url, options: .init(columnMapping: mapping))
    XCTAssertEqual(samples.count, 2)
    XCTAssertEqual(samples[0].accelerometer!.z, g, accuracy: 1e-12)
  }

  /// `skipLines` outside 0…``ColumnMapping/maximumSkippedLines`` and a vector of other than three
  /// columns, set in code, are clear errors when a file is opened (they trapped).
  func testPublicPropertiesOutOfRangeAreErrors() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write("t,x,y,z\n0,0,0,1\n", to: "plain.csv")
    var mapping = try ColumnMapping(parsing: "t=t,ax=x,ay=y,az=z")
    for skip in [-1, Int.min, ColumnMapping.maximumSkippedLines + 1] {
      mapping.skipLines = skip
      XCTAssertThrowsError(try RecordingReader.open(url, options: .init(columnMapping: mapping))) {
        error in
        XCTAssertEqual((error as? RecordingError)?.kind, .malformedHeader)
        XCTAssertTrue("\(error)".contains("skipLines must be 0…1000000"), "\(error)")
      }
    }
    mapping.skipLines = 0
    mapping.accelerometer = ["x", "y"]
    XCTAssertThrowsError(try RecordingReader.open(url, options: .init(columnMapping: mapping))) {
      error in
      XCTAssertTrue("\(error)".contains("a vector needs three columns"), "\(error)")
    }
    mapping.accelerometer = ["x", "y", "z"]
    XCTAssertEqual(
      try RecordingReader.readSamples(url, options: .init(columnMapping: mapping)).count, 1)
  }
}
