// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// EuRoC/TUM-VI `imu0/data.csv` and x-io x-IMU3 logs, built from the documented headers.
final class RecordingEuRoCAndXIMU3Tests: XCTestCase {
  private let euroc =
    "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\r\n"
    + "1403636579758555392,-0.099134701513277898,0.14730578886832138,0.02722713633111154,8.1476917083333333,-0.37592158333333331,-2.4026292499999999\r\n"
    + "1403636579763555584,-0.099134701513277898,0.14032447186034408,0.029321531433504733,8.033280791666666,-0.40861041666666664,-2.4026292499999999\r\n"

  func testEuRoCFileAndDatasetFolder() throws {
    let folder = try RecordingFixtureFolder()
    let file = try folder.write(euroc, to: "MH_01/mav0/imu0/data.csv")
    try folder.write("sensor_type: imu\nrate_hz: 200 # Hz\n", to: "MH_01/mav0/imu0/sensor.yaml")
    XCTAssertEqual(try RecordingFormat.detect(file), .euroc)
    let sequence = folder.url.appendingPathComponent("MH_01")
    XCTAssertEqual(try RecordingFormat.detect(sequence), .euroc)
    var stream = try RecordingReader.open(sequence)
    XCTAssertEqual(stream.descriptor.nominalSampleRate, 200)
    XCTAssertEqual(stream.descriptor.sensors, .inertial)
    let samples = try stream.collect()
    XCTAssertEqual(samples.count, 2)
    // Integer nanoseconds split exactly before the conversion to seconds.
    XCTAssertEqual(samples[0].timestamp, 1_403_636_579 + 0.758555392)
    // An epoch-scale Double resolves ~0.2 µs.
    XCTAssertEqual(samples[1].timestamp - samples[0].timestamp, 0.005, accuracy: 1e-6)
    XCTAssertEqual(
      samples[0].gyroscope, SIMD3(-0.099134701513277898, 0.14730578886832138, 0.02722713633111154))
    XCTAssertEqual(
      samples[0].accelerometer, SIMD3(8.1476917083333333, -0.37592158333333331, -2.4026292499999999)
    )
  }

  func testEuRoCSpreadsheetMangledTimestampsStillParse() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n"
        + "1.40363657975856E+018,0,0,0,0,0,9.8\n", to: "data.csv")
    let samples = try RecordingReader.readSamples(url)
    XCTAssertEqual(samples[0].timestamp, 1.40363657975856E+018 / 1e9)
  }

  func testXIMU3FolderConvertsDegreesAndG() throws {
    let folder = try RecordingFixtureFolder()
    try folder.write(
      "Timestamp (us),Gyroscope X (deg/s),Gyroscope Y (deg/s),Gyroscope Z (deg/s),Accelerometer X (g),Accelerometer Y (g),Accelerometer Z (g)\n"
        + "1000000,90.000000,0.000000,-180.000000,0.000000,0.000000,1.000000\n"
        + "1010000,0.000000,0.000000,0.000000,0.500000,0.000000,1.000000\n",
      to: "x-IMU3 - 65577B49/Inertial.csv")
    try folder.write(
      "Timestamp (us),X (a.u.),Y (a.u.),Z (a.u.)\n1005000,0.300000,0.100000,-0.800000\n",
      to: "x-IMU3 - 65577B49/Magnetometer.csv")
    try folder.write(
      "Timestamp (us),W,X,Y,Z\n1000000,1,0,0,0\n", to: "x-IMU3 - 65577B49/Quaternion.csv")
    let url = folder.url.appendingPathComponent("x-IMU3 - 65577B49")
    XCTAssertEqual(try RecordingFormat.detect(url), .ximu3)
    var stream = try RecordingReader.open(url)
    XCTAssertEqual(stream.descriptor.sensors, .nineAxis)
    XCTAssertNotNil(stream.descriptor.metadata["magnetometerUnits"])
    // No rate in the files: estimated from the inertial samples' 10 ms spacing.
    XCTAssertEqual(stream.descriptor.nominalSampleRate ?? 0, 100, accuracy: 1e-6)
    XCTAssertEqual(stream.descriptor.metadata["nominalSampleRateEstimated"], "true")
    let samples = try stream.collect()
    XCTAssertEqual(samples.map(\.timestamp), [1, 1.005, 1.01])
    XCTAssertEqual(samples[0].gyroscope!.x, .pi / 2, accuracy: 1e-15)  // one multiplication
    XCTAssertEqual(samples[0].gyroscope!.z, -.pi, accuracy: 1e-15)
    XCTAssertEqual(samples[0].accelerometer, SIMD3(0, 0, 9.80665))
    XCTAssertEqual(samples[1].magnetometer, SIMD3(0.3, 0.1, -0.8))
    XCTAssertEqual(samples[2].accelerometer, SIMD3(0.5 * 9.80665, 0, 9.80665))
  }

  func testFusionStyleSingleFile() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      "Time (s),Gyroscope X (deg/s),Gyroscope Y (deg/s),Gyroscope Z (deg/s),Accelerometer X (g),Accelerometer Y (g),Accelerometer Z (g),Magnetometer X (uT),Magnetometer Y (uT),Magnetometer Z (uT)\n"
        + "0,0.01644619,-0.1517251,0.1080897,0.001015204,-0.02045836,0.9970807,15.3017,0.4328527,-41.06483\n"
        + "0.01,0,0,0,5.35E-05,0,1,15,0.4,-41\n",
      to: "Sensor Data.csv")
    XCTAssertEqual(try RecordingFormat.detect(url), .ximu3)
    let samples = try RecordingReader.readSamples(url)
    XCTAssertEqual(samples.count, 2)
    XCTAssertEqual(samples[0].magnetometer, SIMD3(15.3017, 0.4328527, -41.06483))
    XCTAssertEqual(samples[0].accelerometer!.z, 0.9970807 * 9.80665)
    XCTAssertEqual(samples[1].accelerometer!.x, 5.35E-05 * 9.80665)
  }
}
