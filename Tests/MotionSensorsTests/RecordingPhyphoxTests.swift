// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// phyphox CSV exports, built from the documented layout (quoted headers, Java-style exponents,
/// `meta/time.csv`, `meta/device.csv`).
final class RecordingPhyphoxTests: XCTestCase {
  private let timeCSV = """
    "event","experiment time","system time","system time text"
    "START",0.000000000000000E0,1.710697732324872E9,"2024-03-17 19:48:52.325 UTC+02:00"
    "PAUSE",4.188245124998502E1,1.710697774206282E9,"2024-03-17 19:49:34.206 UTC+02:00"

    """
  private let deviceCSV =
    "\"property\",\"value\"\n\"version\",\"1.1.13\"\n\"deviceModel\",\"iPhone12,1\"\n"

  func testZipExportWithAccelerometerAndGyroscopeTables() throws {
    let folder = try RecordingFixtureFolder()
    let acceleration = """
      "Time (s)","Acceleration x (m/s^2)","Acceleration y (m/s^2)","Acceleration z (m/s^2)","Absolute acceleration (m/s^2)"
      5.834833311E-3,1.094196774E-3,4.474990626E-2,9.81,9.81
      1.5E-2,0,0,9.8,9.8
      NaN,NaN,NaN,NaN,NaN

      """
    let gyroscope = """
      "Time (s)","Gyroscope x (rad/s)","Gyroscope y (rad/s)","Gyroscope z (rad/s)","Absolute (rad/s)"
      1.5E-2,1E-1,2E-1,3E-1,0.37

      """
    let zip = try folder.writeZip(
      [
        ("Experiment 2024-03-17/Accelerometer.csv", acceleration),
        ("Experiment 2024-03-17/Gyroscope.csv", gyroscope),
        ("Experiment 2024-03-17/meta/time.csv", timeCSV),
        ("Experiment 2024-03-17/meta/device.csv", deviceCSV),
      ], to: "phyphox.zip")
    XCTAssertEqual(try RecordingFormat.detect(zip), .phyphox)
    var stream = try RecordingReader.open(zip)
    XCTAssertEqual(stream.descriptor.sensors, .inertial)
    XCTAssertEqual(stream.descriptor.metadata["phyphox.startSystemTime"], "\(1.710697732324872E9)")
    XCTAssertEqual(stream.descriptor.metadata["phyphox.device.deviceModel"], "iPhone12,1")
    XCTAssertTrue(
      stream.descriptor.metadata["phyphox.timeEvents"]?.contains("PAUSE 41.88245124998502") ?? false
    )
    let samples = try stream.collect()
    XCTAssertEqual(samples.count, 2, "the NaN padding row is skipped; equal times merge")
    XCTAssertEqual(samples[0].accelerometer, SIMD3(1.094196774E-3, 4.474990626E-2, 9.81))
    XCTAssertEqual(samples[1].sensors, .inertial)
    XCTAssertEqual(samples[1].gyroscope, SIMD3(0.1, 0.2, 0.3))
  }

  func testSemicolonDecimalCommaTableWithPressure() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      "\"Time (s)\";\"Pressure (hPa)\"\n0,5;1013,25\n1,0;1013,5\n", to: "Raw Data.csv")
    XCTAssertEqual(try RecordingFormat.detect(url), .phyphox)
    let samples = try RecordingReader.readSamples(url)
    XCTAssertEqual(samples.map(\.timestamp), [0.5, 1])
    XCTAssertEqual(samples[0].pressure!, 101.325, accuracy: 1e-12)  // hPa × 0.1, one rounding
  }

  func testLinearAccelerationOnlyExportHasNoRawSensors() throws {
    let folder = try RecordingFixtureFolder()
    try folder.write(
      "\"Time (s)\",\"Linear Acceleration x (m/s^2)\",\"Linear Acceleration y (m/s^2)\",\"Linear Acceleration z (m/s^2)\",\"Absolute acceleration (m/s^2)\"\n0.1,0,0,0,0\n",
      to: "lin/Raw Data.csv")
    try folder.write(timeCSV, to: "lin/meta/time.csv")
    let url = folder.url.appendingPathComponent("lin")
    XCTAssertEqual(try RecordingFormat.detect(url), .phyphox)
    XCTAssertThrowsError(try RecordingReader.open(url)) { error in
      XCTAssertTrue("\(error)".contains("no phyphox table"), "\(error)")
    }
  }

  func testMalformedCellNamesTableAndLine() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      "\"Time (s)\",\"Gyroscope x (rad/s)\",\"Gyroscope y (rad/s)\",\"Gyroscope z (rad/s)\"\n0,1,2,3\n0.1,1,2\n",
      to: "g.csv")
    var stream = try RecordingReader.open(url)
    XCTAssertThrowsError(try stream.collect()) { error in
      XCTAssertEqual((error as? RecordingError)?.line, 3)
      XCTAssertTrue("\(error)".contains("expected 4 cells, found 3"), "\(error)")
    }
  }
}
