// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

final class RecordingColumnMappingTests: XCTestCase {
  private let g = 9.80665

  func testParsingUnitsAndOptions() throws {
    let mapping = try ColumnMapping(
      parsing:
        "t=time,ax=accX,ay=accY,az=accZ,gx=gyrX,gy=gyrY,gz=gyrZ,p=pressure;units=-g,deg/s,ms,hPa;sep=semicolon;decimal=comma"
    )
    XCTAssertEqual(mapping.time, "time")
    XCTAssertEqual(mapping.accelerometer, ["accX", "accY", "accZ"])
    XCTAssertNil(mapping.magnetometer)
    XCTAssertEqual(mapping.accelerationScale, -g)
    XCTAssertEqual(mapping.angularRateScale, .pi / 180)
    XCTAssertEqual(mapping.secondsPerTimeUnit, 1e-3)
    XCTAssertTrue(mapping.timeIsInteger)
    XCTAssertEqual(mapping.pressureScale, 0.1)
    XCTAssertEqual(mapping.separator, ";")
    XCTAssertTrue(mapping.decimalComma)

    let plain = try ColumnMapping(parsing: "t=t,ax=a,ay=b,az=c;units=g")
    XCTAssertEqual(plain.accelerationScale, g)
    XCTAssertEqual(
      try ColumnMapping(parsing: "t=1,mx=2,my=3,mz=4;mag=gauss;header=none").magneticFieldScale, 100
    )
  }

  func testParsingErrorsNameTheProblem() {
    let cases: [(String, String)] = [
      ("ax=a,ay=b,az=c", "t= is required"),
      ("t=time,ax=a,ay=b", "go together"),
      ("t=time,qq=a", "unknown key"),
      ("t=time;units=furlongs", "unknown unit"),
      ("t=time;sep=colon", "unknown separator"),
      ("t=time;frobnicate=1", "unknown option"),
      ("t=time,ax", "expected key=column"),
      ("t=time;skip=-1", "skip= takes a line count"),
      ("t=time;skip=1000001", "skip= takes a line count"),
    ]
    for (text, expected) in cases {
      XCTAssertThrowsError(try ColumnMapping(parsing: text), text) { error in
        XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
        XCTAssertEqual((error as? RecordingError)?.kind, .malformedHeader)
      }
    }
  }

  func testReadsAnyCSVThroughTheMapping() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      "@ my logger\nstamp;ACC X;ACC Y;ACC Z;GYR X;GYR Y;GYR Z;junk\n"
        + "1000;0;0;-1;90;0;0;x\n1010;0,5;0;-1;0;0;0;y\n", to: "any.csv")
    let mapping = try ColumnMapping(
      parsing:
        "t=stamp,ax=acc x,ay=acc y,az=acc z,gx=gyr x,gy=gyr y,gz=gyr z;units=-g,deg/s,ms;sep=semicolon;decimal=comma;skip=1"
    )
    XCTAssertThrowsError(try RecordingReader.open(url), "not detectable without the mapping")
    var stream = try RecordingReader.open(url, options: .init(columnMapping: mapping))
    XCTAssertEqual(stream.format, .columns)
    XCTAssertEqual(stream.descriptor.sensors, .inertial)
    let samples = try stream.collect()
    XCTAssertEqual(samples.map(\.timestamp), [1, 1.01])
    XCTAssertEqual(samples[0].accelerometer, SIMD3(-0.0, -0.0, g), "Apple's g: face up reads -1")
    XCTAssertEqual(samples[1].accelerometer, SIMD3(-0.5 * g, -0.0, g))
    XCTAssertEqual(samples[0].gyroscope!.x, .pi / 2, accuracy: 1e-15)  // one multiplication
  }

  func testHeaderlessFileByPosition() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write("0.0,1,2,3\n0.1,4,5,6\n", to: "raw.csv")
    let mapping = try ColumnMapping(parsing: "t=1,mx=2,my=3,mz=4;header=none;mag=nT")
    let samples = try RecordingReader.readSamples(
      url, format: .columns, options: .init(columnMapping: mapping))
    XCTAssertEqual(
      samples.map(\.magnetometer), [SIMD3(0.001, 0.002, 0.003), SIMD3(0.004, 0.005, 0.006)])
  }

  /// Found by FuzzColumnMapping: `skip=` larger than the file once looped to the count at its end.
  func testSkippingPastTheEndOfTheFileIsAClearError() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write("time,ax,ay,az\n0,0,0,1\n", to: "short.csv")
    let mapping = try ColumnMapping(
      parsing: "t=time,ax=ax,ay=ay,az=az;skip=\(ColumnMapping.maximumSkippedLines)")
    XCTAssertThrowsError(try RecordingReader.open(url, options: .init(columnMapping: mapping))) {
      error in
      XCTAssertNotNil(error as? RecordingError, "\(error)")
    }
  }

  func testMissingColumnAndMissingMappingAreClearErrors() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write("time,x\n0,1\n", to: "m.csv")
    let mapping = try ColumnMapping(parsing: "t=time,ax=accX,ay=accY,az=accZ")
    XCTAssertThrowsError(try RecordingReader.open(url, options: .init(columnMapping: mapping))) {
      error in
      XCTAssertTrue(
        "\(error)".contains("\"accX\", which the file does not have (columns: time, x)"), "\(error)"
      )
    }
    XCTAssertThrowsError(try RecordingReader.open(url, format: .columns)) { error in
      XCTAssertTrue("\(error)".contains("needs a column mapping"), "\(error)")
    }
  }
}
