// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import XCTest

@testable import MotionSensors

/// SensorLog (iOS) wide CSVs, built from the documented column names.
final class RecordingSensorLogTests: XCTestCase {
  private let g = 9.80665
  private let header =
    "loggingTime(txt),loggingSample(N),accelerometerTimestamp_sinceReboot(s),accelerometerAccelerationX(G),"
    + "accelerometerAccelerationY(G),accelerometerAccelerationZ(G),gyroTimestamp_sinceReboot(s),gyroRotationX(rad/s),"
    + "gyroRotationY(rad/s),gyroRotationZ(rad/s),magnetometerTimestamp_sinceReboot(s),magnetometerX(µT),magnetometerY(µT),"
    + "magnetometerZ(µT),motionTimestamp_sinceReboot(s),motionYaw(rad),motionRoll(rad),motionPitch(rad),"
    + "motionRotationRateX(rad/s),motionRotationRateY(rad/s),motionRotationRateZ(rad/s),motionUserAccelerationX(G),"
    + "motionUserAccelerationY(G),motionUserAccelerationZ(G),motionAttitudeReferenceFrame(txt),motionQuaternionX(R),"
    + "motionQuaternionY(R),motionQuaternionZ(R),motionQuaternionW(R),motionGravityX(G),motionGravityY(G),motionGravityZ(G),"
    + "altimeterTimestamp_sinceReboot(s),altimeterPressure(kPa)\n"

  private var rows: String {
    // Row 2 repeats the magnetometer (sample-and-hold); row 1 has no altimeter value yet.
    "2025-03-11T14:44:11.899-04:00,1,9130.01,0,0,-1,9130.012,0.1,0.2,0.3,9130.005,10,20,-40,9130.011,0,0,0,0.01,0.02,0.03,0.1,0,0,XArbitraryCorrectedZVertical,0,0,0,1,0,0,-1,,\n"
      + "2025-03-11T14:44:11.909-04:00,2,9130.02,0.5,0,-1,9130.022,0.4,0.5,0.6,9130.005,10,20,-40,9130.021,0,0,0,0.01,0.02,0.03,0,0,-0.5,XArbitraryCorrectedZVertical,0,0,0.7071067811865476,0.7071067811865476,0,-1,0,9130.015,100.123\n"
  }

  func testRawSensorsAreConvertedAndRepeatsDropped() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(header + rows, to: "2025-03-11_14_44_11_my_iOS_device.csv")
    XCTAssertEqual(try RecordingFormat.detect(url), .sensorLog)
    var stream = try RecordingReader.open(url)
    XCTAssertEqual(
      stream.descriptor.sensors, [.accelerometer, .gyroscope, .magnetometer, .barometer])
    XCTAssertTrue(stream.descriptor.hasGroundTruth)
    XCTAssertEqual(
      stream.descriptor.metadata["sensorlog.referenceFrame"], "XArbitraryCorrectedZVertical")
    XCTAssertNotNil(stream.descriptor.metadata["groundTruthSource"])
    // Raw sensors: their own outputs, for the fusion.
    XCTAssertEqual(stream.descriptor.sampleTiming, .sensorOutputs)
    let samples = try stream.collect()
    XCTAssertEqual(
      samples.map(\.timestamp),
      [9130.005, 9130.01, 9130.011, 9130.012, 9130.015, 9130.02, 9130.021, 9130.022],
      "each group on its own clock; the repeated magnetometer row is dropped")
    let magnetometer = samples.filter { $0.magnetometer != nil }
    XCTAssertEqual(magnetometer.count, 1)
    XCTAssertEqual(magnetometer[0].magnetometer, SIMD3(10, 20, -40))
    // Face up: Core Motion (0, 0, -1) g is specific force (0, 0, +g).
    XCTAssertEqual(samples[1].accelerometer, SIMD3(-0.0, -0.0, g))
    XCTAssertEqual(samples[5].accelerometer, SIMD3(-0.5 * g, -0.0, g))
    XCTAssertEqual(samples[3].gyroscope, SIMD3(0.1, 0.2, 0.3))
    XCTAssertEqual(samples[4].pressure, 100.123)
  }

  /// SensorLog can log device motion alone; its accelerometer is then Core Motion's gravity plus
  /// user acceleration of each row, and its gyroscope the bias-corrected rotation rate (the file
  /// used to have "no accelerometer samples" for `motionctl steps`).
  func testDeviceMotionAloneGivesTheAccelerometerAndGyroscope() throws {
    let motionOnly =
      "loggingTime(txt),motionTimestamp_sinceReboot(s),motionRotationRateX(rad/s),motionRotationRateY(rad/s),"
      + "motionRotationRateZ(rad/s),motionUserAccelerationX(G),motionUserAccelerationY(G),motionUserAccelerationZ(G),"
      + "motionGravityX(G),motionGravityY(G),motionGravityZ(G)\n"
      + "2025-03-11T14:44:11.899-04:00,100.00,0.1,0.2,0.3,0.1,0,0,0,0,-1\n"
      + "2025-03-11T14:44:11.909-04:00,100.01,0.4,0.5,0.6,0,0.2,-0.5,0,-1,0\n"
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(motionOnly, to: "motion-only.csv")
    var stream = try RecordingReader.open(url)
    XCTAssertEqual(stream.descriptor.sensors, [.accelerometer, .gyroscope])
    // Both read from device motion: the fusion is told they are Core Motion's instants.
    XCTAssertEqual(stream.descriptor.sampleTiming, .deviceMotionInstants)
    let samples = try stream.collect()
    let accelerometer = samples.compactMap(\.accelerometer)
    XCTAssertEqual(accelerometer.count, 2)
    // Apple's acceleration is gravity + user acceleration, in g; specific force is −g times it.
    XCTAssertEqual(accelerometer[0].x, -0.1 * g, accuracy: 1e-12)
    XCTAssertEqual(accelerometer[0].z, g, accuracy: 1e-12)
    XCTAssertEqual(accelerometer[1].y, -(-1 + 0.2) * g, accuracy: 1e-12)
    XCTAssertEqual(accelerometer[1].z, 0.5 * g, accuracy: 1e-12)
    XCTAssertEqual(samples.compactMap(\.gyroscope), [SIMD3(0.1, 0.2, 0.3), SIMD3(0.4, 0.5, 0.6)])

    // SensorLog writes every column, those of the switched-off sensors empty: the same.
    let emptyRaw =
      header
      + "2025-03-11T14:44:11.899-04:00,1,,,,,,,,,,,,,100.00,0,0,0,0.1,0.2,0.3,0.1,0,0,"
      + "XArbitraryZVertical,0,0,0,1,0,0,-1,,\n"
      + "2025-03-11T14:44:11.909-04:00,2,,,,,,,,,,,,,100.01,0,0,0,0.4,0.5,0.6,0,0.2,-0.5,"
      + "XArbitraryZVertical,0,0,0,1,0,-1,0,,\n"
    var full = try RecordingReader.open(try folder.write(emptyRaw, to: "empty-raw.csv"))
    // The magnetometer, switched off, is not announced; the altimeter may start late, so it is.
    XCTAssertEqual(full.descriptor.sensors, [.accelerometer, .gyroscope, .barometer])
    let fullSamples = try full.collect()
    XCTAssertEqual(fullSamples.compactMap(\.accelerometer), accelerometer)
    XCTAssertEqual(fullSamples.compactMap(\.gyroscope), samples.compactMap(\.gyroscope))
  }

  /// A row with a cell missing (SensorLog leaves out cells it has no value for) cannot be read,
  /// since its cells no longer line up with the header; with skipping on it is counted and left
  /// out, like any invalid row, instead of stopping the file.
  func testARowOfTheWrongLengthCanBeSkipped() throws {
    let folder = try RecordingFixtureFolder()
    var lines = (header + rows).split(separator: "\n").map(String.init)
    lines[1].removeLast(2)  // the empty altimeter cells of the first data row
    let url = try folder.write(lines.joined(separator: "\n") + "\n", to: "short.csv")
    XCTAssertThrowsError(try RecordingReader.readSamples(url)) { error in
      XCTAssertEqual((error as? RecordingError)?.kind, .malformedRow)
      XCTAssertEqual((error as? RecordingError)?.wouldBeSkipped, true)
    }
    var skipping = try RecordingReader.open(url, options: .init(invalidRows: .skip))
    let samples = try skipping.collect()
    XCTAssertEqual(skipping.skippedRowCount, 1, "one row, counted once across the sensor groups")
    let times = Set(samples.map(\.timestamp))
    XCTAssertTrue(
      times.isDisjoint(with: [9130.01, 9130.011, 9130.012]), "the short row is left out")
    XCTAssertTrue(times.isSuperset(of: [9130.02, 9130.021, 9130.022]), "the next row is read")
  }

  /// Tab-separated, and semicolons with decimal commas (a spreadsheet in a German locale saving
  /// the log again) read as the comma-separated original.
  func testOtherSeparatorsAndDecimalCommasReadTheSame() throws {
    let folder = try RecordingFixtureFolder()
    let original = try RecordingReader.readSamples(try folder.write(header + rows, to: "comma.csv"))
    func rewritten(_ separator: String, decimalComma: Bool) -> String {
      (header + rows).split(separator: "\n", omittingEmptySubsequences: false).map { line in
        var text = String(line)
        if decimalComma { text = text.replacingOccurrences(of: ".", with: "#") }
        text = text.replacingOccurrences(of: ",", with: separator)
        // Only numbers get a decimal comma: names and dates keep their points.
        if decimalComma {
          text = text.split(separator: Character(separator), omittingEmptySubsequences: false).map {
            cell in
            let c = String(cell)
            return Double(c.replacingOccurrences(of: "#", with: ".")) != nil
              ? c.replacingOccurrences(of: "#", with: ",")
              : c.replacingOccurrences(of: "#", with: ".")
          }.joined(separator: separator)
        }
        return text
      }.joined(separator: "\n")
    }
    for (name, separator, decimalComma) in [("tab", "\t", false), ("semicolon", ";", true)] {
      let url = try folder.write(
        rewritten(separator, decimalComma: decimalComma), to: "\(name).csv")
      XCTAssertEqual(try RecordingFormat.detect(url), .sensorLog, name)
      let samples = try RecordingReader.readSamples(url)
      XCTAssertEqual(samples.map(\.timestamp), original.map(\.timestamp), name)
      XCTAssertEqual(samples.map(\.accelerometer), original.map(\.accelerometer), name)
    }
  }

  /// SensorLog's zip holds a log per session (and a watch's): which to read is asked, not
  /// guessed.
  func testAnArchiveWithSeveralLogsNamesThem() throws {
    let folder = try RecordingFixtureFolder()
    let zip = try folder.writeZip(
      [("phone.csv", header + rows), ("phone_Apple Watch.csv", header + rows)], to: "logs.zip")
    XCTAssertEqual(try RecordingFormat.detect(zip), .sensorLog)
    XCTAssertThrowsError(try RecordingReader.open(zip)) { error in
      XCTAssertTrue("\(error)".contains("holds 2 SensorLog logs"), "\(error)")
      XCTAssertTrue("\(error)".contains("phone_Apple Watch.csv"), "\(error)")
    }
    let one = try folder.writeZip([("phone.csv", header + rows)], to: "one.zip")
    XCTAssertEqual(try RecordingReader.readSamples(one).count, 8)
  }

  func testDeviceMotionIsKeptAsGroundTruth() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(header + rows, to: "log.csv")
    let truths = try RecordingReader.readSamples(url).compactMap(\.groundTruth)
    XCTAssertEqual(truths.count, 2)
    XCTAssertEqual(truths[0].earthFromSensor, .identity)
    XCTAssertEqual(
      truths[0].gravity, SIMD3(0, 0, -g),
      "Core Motion's gravity in g, scaled, same direction (down)")
    XCTAssertEqual(
      truths[0].linearAcceleration, SIMD3(-0.1 * g, -0.0, -0.0), "userAcceleration = -linear / g")
    XCTAssertEqual(truths[0].angularVelocity, SIMD3(0.01, 0.02, 0.03))
    XCTAssertEqual(
      truths[1].earthFromSensor,
      Quaternion(w: 0.7071067811865476, x: 0, y: 0, z: 0.7071067811865476))
    XCTAssertEqual(truths[1].gravity, SIMD3(0, -g, 0))
  }

  func testZippedLogAndMalformedCell() throws {
    let folder = try RecordingFixtureFolder()
    let zip = try folder.writeZip(
      [("2025-03-11_14_44_11_my_iOS_device.csv", header + rows)],
      to: "SensorLogFiles_my_iOS_device_250311_14-55-58.zip")
    XCTAssertEqual(try RecordingFormat.detect(zip), .sensorLog)
    XCTAssertEqual(try RecordingReader.readSamples(zip).count, 8)

    let bad = try folder.write(
      header + rows.replacingOccurrences(of: "9130.022,0.4", with: "9130.022,x0.4"), to: "bad.csv")
    var stream = try RecordingReader.open(bad)
    XCTAssertThrowsError(try stream.collect()) { error in
      let error = error as? RecordingError
      XCTAssertEqual(error?.line, 3)
      XCTAssertEqual(error?.column, "gyroRotationX(rad/s)")
    }
  }
}
