// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// The header sniffer shared by the step evaluation and `motionctl altitude`.
final class RecordingSharedTableLayoutTests: XCTestCase {
  func testRecognisesTheSharedLayoutsFromTheHeader() throws {
    let folder = try RecordingFixtureFolder()
    let cases: [(header: String, expected: [SharedTableLayout])] = [
      ("t,ax,ay,az", [.steps]),
      (" T , AX,ay,az,extra", [.steps]),
      ("t,pressure_hpa", [.pressureHectopascals]),
      ("pressure_kpa,t,temperature", [.pressureKilopascals]),
      ("t,ax,ay,az,pressure_hpa", [.steps, .pressureHectopascals]),
      ("t,ax,ay,az,gx,gy,gz,in_trial", [.steps, .gyroscope]),
      ("t,ax,ay,az,gx,gy", [.steps]),
      // R's write.csv and pandas with QUOTE_ALL quote every name.
      ("\"t\",\"ax\",\"ay\",\"az\"", [.steps]),
      ("ax,ay,az,t", []),
      ("time,pressure_hpa", []),
      ("", []),
    ]
    for (index, (header, expected)) in cases.enumerated() {
      let url = try folder.write(header + "\r\n0,1,2,3\n", to: "table\(index).csv")
      XCTAssertEqual(SharedTableLayout.layouts(of: url), expected, header)
      for layout in expected {
        XCTAssertNoThrow(try ColumnMapping(parsing: layout.columnMapping), header)
      }
    }
  }

  /// The units of a plain table come from its readings; zero rows that some loggers write before
  /// the sensor's first reading do not count (300 of them made an m/s² walk read as g).
  func testLeadingZeroRowsDoNotDecideTheUnits() throws {
    let folder = try RecordingFixtureFolder()
    /// The last sample of a table of 300 zero rows, then 600 rows of `reading`.
    func lastSample(afterZeroRowsOf reading: String, name: String) throws -> SIMD3<Double>? {
      var text = "t,ax,ay,az\n"
      for row in 0..<900 { text += "\(Double(row) * 0.01),\(row < 300 ? "0,0,0" : reading)\n" }
      var stream = try RecordingReader.openIncludingSharedTables(try folder.write(text, to: name))
      return try stream.collect().last?.accelerometer
    }
    XCTAssertEqual(
      try lastSample(afterZeroRowsOf: "0.3,0.2,9.7", name: "m.csv"), SIMD3(0.3, 0.2, 9.7),
      "m/s², read as is")
    // The same readings in g (Apple's sign) are converted.
    let inG = try lastSample(afterZeroRowsOf: "0,0,-1", name: "g.csv")
    XCTAssertEqual(inG?.z ?? 0, 9.80665, accuracy: 1e-9)
  }

  /// One mapping reads every layout a header matches: a steps table's pressure column too.
  func testOneMappingReadsTheStepsAndThePressureColumns() throws {
    XCTAssertEqual(
      SharedTableLayout.columnMapping(reading: [.steps, .pressureHectopascals]),
      "t=t,ax=ax,ay=ay,az=az,p=pressure_hpa;units=m/s^2,hPa,s")
    XCTAssertEqual(
      SharedTableLayout.columnMapping(reading: [.pressureKilopascals]),
      "t=t,p=pressure_kpa;units=kPa,s")
    XCTAssertEqual(
      SharedTableLayout.columnMapping(reading: [.steps]), "t=t,ax=ax,ay=ay,az=az;units=m/s^2,s")
    XCTAssertNil(SharedTableLayout.columnMapping(reading: []))
    XCTAssertNil(SharedTableLayout.columnMapping(reading: [.gyroscope]), "no accelerometer")
    XCTAssertEqual(
      SharedTableLayout.columnMapping(reading: [.steps, .gyroscope]),
      "t=t,ax=ax,ay=ay,az=az,gx=gx,gy=gy,gz=gz;units=m/s^2,rad/s,s")
    for layouts: [SharedTableLayout] in [[.steps, .pressureKilopascals], [.pressureHectopascals]] {
      let text = try XCTUnwrap(SharedTableLayout.columnMapping(reading: layouts))
      XCTAssertNoThrow(try ColumnMapping(parsing: text), text)
    }
  }

  func testUnreadableOrMissingFilesMatchNothing() throws {
    let folder = try RecordingFixtureFolder()
    XCTAssertEqual(SharedTableLayout.layouts(of: folder.url), [], "a directory")
    XCTAssertEqual(
      SharedTableLayout.layouts(of: folder.url.appendingPathComponent("missing.csv")), [])
  }

  func testReadsNoMoreThanTheHeaderLimit() throws {
    // A first line longer than the limit: the names are cut there, so `t,ax,ay,az` still matches
    // while a pressure column beyond the limit is not seen.
    let folder = try RecordingFixtureFolder()
    let padding = Array(repeating: "c", count: SharedTableLayout.headerByteLimit).joined(
      separator: ",")
    let url = try folder.write("t,ax,ay,az," + padding + ",pressure_hpa\n", to: "long.csv")
    XCTAssertEqual(SharedTableLayout.layouts(of: url), [.steps])
  }
}
