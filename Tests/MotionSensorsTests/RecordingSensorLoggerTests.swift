// SPDX-License-Identifier: Apache-2.0

import Foundation
import XCTest

@testable import MotionSensors

/// Sensor Logger exports, built from the documented layout (per-sensor `time,seconds_elapsed,z,y,x`
/// CSVs with epoch-nanosecond times, and `Metadata.csv`).
final class RecordingSensorLoggerTests: XCTestCase {
  private let g = 9.80665

  private func iOSFiles(standardised: Bool = false) -> [(String, String)] {
    [
      (
        "Metadata.csv",
        "version,device name,recording epoch time,recording time,recording timezone,platform,appVersion,sensors,sampleRateMs,standardisation\n"
          + "3,iPhone 13,1745877875750,2025-04-28_22-04-35,America/New_York,ios,1.43.2,Accelerometer|Gyroscope,10|10,\(standardised)\n"
      ),
      // Face up at rest: Core Motion reads (0, 0, -1) g; written z,y,x. Standardised, the app
      // writes specific force in m/s².
      (
        "AccelerometerUncalibrated.csv",
        "time,seconds_elapsed,z,y,x\n"
          + (standardised
            ? "1745877875782820400,0.0328203125,9.80665,-4.903325,0\n"
              + "1745877875792820400,0.0428203125,9.80665,0,-2.4516625\n"
            : "1745877875782820400,0.0328203125,-1,0.5,0\n"
              + "1745877875792820400,0.0428203125,-1,0,0.25\n")
      ),
      // User acceleration (gravity removed): must not be replayed as the accelerometer.
      ("Accelerometer.csv", "time,seconds_elapsed,z,y,x\n1745877875782820400,0.03,0.1,0.1,0.1\n"),
      (
        "GyroscopeUncalibrated.csv",
        "time,seconds_elapsed,z,y,x\n"
          + "1745877875782820400,0.0328203125,0.3,0.2,0.1\n"
          + "1745877875787820400,0.0378203125,0.6,0.5,0.4\n"
      ),
      ("Gyroscope.csv", "time,seconds_elapsed,z,y,x\n1745877875782820400,0.03,9,9,9\n"),
      ("Magnetometer.csv", "time,seconds_elapsed,z,y,x\n1745877875790000000,0.04,-40,20,10\n"),
      (
        "Barometer.csv",
        "time,seconds_elapsed,relativeAltitude,pressure\n1745877875208205800,-0.541794189453125,0,1019.5285034179688\n"
      ),
      ("Annotation.csv", ""),
    ]
  }

  func testIOSFolderIsDetectedConvertedAndMerged() throws {
    let folder = try RecordingFixtureFolder()
    for (name, text) in iOSFiles() { try folder.write(text, to: "SensorLogger-2025-04-28/\(name)") }
    let url = folder.url.appendingPathComponent("SensorLogger-2025-04-28")
    XCTAssertEqual(try RecordingFormat.detect(url), .sensorLogger)
    var stream = try RecordingReader.open(url)
    XCTAssertEqual(
      stream.descriptor.sensors, [.accelerometer, .gyroscope, .magnetometer, .barometer])
    XCTAssertEqual(stream.descriptor.nominalSampleRate, 100)
    XCTAssertEqual(stream.descriptor.metadata["sensorlogger.device name"], "iPhone 13")
    let samples = try stream.collect()
    XCTAssertEqual(samples.count, 5)
    // Barometer first (earliest), in kPa.
    XCTAssertEqual(samples[0].sensors, [.barometer])
    // One multiplication by 0.1 (hPa to kPa).
    XCTAssertEqual(samples[0].pressure!, 101.95285034179688, accuracy: 1e-12)
    // Accelerometer and raw gyroscope at the same nanosecond merge into one sample.
    XCTAssertEqual(samples[1].sensors, [.accelerometer, .gyroscope])
    XCTAssertEqual(samples[1].accelerometer, SIMD3(-0.0, -0.5 * g, g))
    XCTAssertEqual(
      samples[1].gyroscope, SIMD3(0.1, 0.2, 0.3), "uncalibrated gyroscope, x from the x column")
    XCTAssertEqual(samples[1].timestamp, 1_745_877_875 + 0.7828204)
    XCTAssertEqual(samples[2].gyroscope, SIMD3(0.4, 0.5, 0.6))
    XCTAssertEqual(samples[3].magnetometer, SIMD3(10, 20, -40))
    XCTAssertEqual(samples[4].accelerometer, SIMD3(-0.25 * g, -0.0, g))
    XCTAssertEqual(samples.map(\.timestamp), samples.map(\.timestamp).sorted())
  }

  func testStandardisedIOSAndAndroidZipKeepTheirSign() throws {
    let folder = try RecordingFixtureFolder()
    let standardised = try folder.writeZip(iOSFiles(standardised: true), to: "ios-standard.zip")
    let first = try XCTUnwrap(
      RecordingReader.readSamples(standardised).first { $0.accelerometer != nil })
    XCTAssertEqual(
      first.accelerometer, SIMD3(0, -4.903325, 9.80665), "already m/s² in Android's convention")

    let android: [(String, String)] = [
      (
        "Recording/Metadata.csv",
        "version,device name,recording epoch time,recording time,recording timezone,platform,appVersion,device id,sensors,sampleRateMs\n"
          + "3,SM-S921B,1707663721288,2024-02-11_15-02-01,Europe/Madrid,android,1.28,abc,TotalAcceleration,10\n"
      ),
      (
        "Recording/TotalAcceleration.csv",
        "time,seconds_elapsed,z,y,x\n1707663721345109200,0.057109130859375,7.511070251464844,6.9344000816345215,1.423729419708252\n"
      ),
      (
        "Recording/AccelerometerUncalibrated.csv",
        "time,seconds_elapsed,z,y,x\n1707663721345109200,0.05,1,1,1\n"
      ),
      ("Recording/Annotation.csv", ""),
    ]
    let zip = try folder.writeZip(android, to: "android.zip")
    XCTAssertEqual(try RecordingFormat.detect(zip), .sensorLogger)
    let samples = try RecordingReader.readSamples(zip)
    XCTAssertEqual(samples.count, 1)
    XCTAssertEqual(
      samples[0].accelerometer, SIMD3(1.423729419708252, 6.9344000816345215, 7.511070251464844))
    XCTAssertEqual(samples[0].timestamp, 1_707_663_721 + 0.3451092)
  }

  /// Metadata.csv that says the opposite of the readings: `standardisation` true over an
  /// iPhone's g with Apple's sign was read as m/s² with Android's sign (9.8 times too weak and
  /// upside down), and false over m/s² 9.8 times too strong. The readings decide, and the
  /// descriptor says so.
  func testMetadataThatContradictsTheReadingsIsOverruled() throws {
    let folder = try RecordingFixtureFolder()
    let claimsStandardised = iOSFiles().map { name, text in
      (
        name,
        name == "Metadata.csv" ? text.replacingOccurrences(of: ",false\n", with: ",true\n") : text
      )
    }
    var stream = try RecordingReader.open(try folder.writeZip(claimsStandardised, to: "a.zip"))
    let note = try XCTUnwrap(stream.descriptor.metadata["metadataDisagreement"])
    XCTAssertTrue(note.contains("standardisation true"), note)
    XCTAssertTrue(note.contains("reads about 1: read as g with Apple's sign"), note)
    // Face up: Core Motion (0, 0, -1) g is specific force (0, 0, +g); written z,y,x.
    XCTAssertEqual(try stream.collect().compactMap(\.accelerometer).first, SIMD3(-0.0, -0.5 * g, g))

    let claimsG = iOSFiles(standardised: true).map { name, text in
      (
        name,
        name == "Metadata.csv" ? text.replacingOccurrences(of: ",true\n", with: ",false\n") : text
      )
    }
    stream = try RecordingReader.open(try folder.writeZip(claimsG, to: "b.zip"))
    let other = try XCTUnwrap(stream.descriptor.metadata["metadataDisagreement"])
    XCTAssertTrue(other.contains("reads about 9.8: read as m/s² with Android's sign"), other)
    XCTAssertEqual(
      try stream.collect().compactMap(\.accelerometer).first, SIMD3(0, -4.903325, 9.80665))

    // Metadata that agrees adds no note.
    stream = try RecordingReader.open(try folder.writeZip(iOSFiles(), to: "c.zip"))
    XCTAssertNil(stream.descriptor.metadata["metadataDisagreement"])
  }

  func testOldSchemaWithoutSecondsElapsedAndWithoutMetadata() throws {
    let folder = try RecordingFixtureFolder()
    try folder.write(
      "time,z,y,x\n1610000000000000000,9.8,0,0\n1610000000010000000,9.7,0.1,0\n",
      to: "old/TotalAcceleration.csv")
    let url = folder.url.appendingPathComponent("old")
    XCTAssertEqual(try RecordingFormat.detect(url), .sensorLogger)
    var stream = try RecordingReader.open(url)
    XCTAssertTrue(stream.descriptor.metadata["platform"]?.contains("assumed") ?? false)
    let samples = try stream.collect()
    XCTAssertEqual(samples.map(\.timestamp), [1_610_000_000, 1_610_000_000.01])
  }

  /// An iOS export whose Metadata.csv is gone (or lacks the platform): its
  /// AccelerometerUncalibrated.csv is in g with Apple's sign, and reading it as Android's m/s²
  /// made a walk 9.8 times too weak (steps lost, the activity unknown). Its readings tell.
  func testAnIOSExportWithoutItsPlatformIsToldByItsReadings() throws {
    let folder = try RecordingFixtureFolder()
    let files = iOSFiles().filter { $0.0 != "Metadata.csv" }
    let zip = try folder.writeZip(files, to: "ios-without-metadata.zip")
    var stream = try RecordingReader.open(zip)
    XCTAssertTrue(stream.descriptor.metadata["platform"]?.contains("g (iOS)") ?? false)
    let accelerometer = try stream.collect().compactMap(\.accelerometer)
    // Face up: Core Motion (0, 0, -1) g is specific force (0, 0, +g); written z,y,x.
    XCTAssertEqual(accelerometer.first, SIMD3(-0.0, -0.5 * g, g))
    // An Android export of the same layout (m/s²) is left as it is.
    try folder.write(
      "time,seconds_elapsed,z,y,x\n1610000000000000000,0,9.8,0,0\n1610000000010000000,0.01,9.7,0.1,0\n",
      to: "android/AccelerometerUncalibrated.csv")
    let android = try RecordingReader.readSamples(folder.url.appendingPathComponent("android"))
    XCTAssertEqual(android.first?.accelerometer, SIMD3(0, 0, 9.8))
  }

  /// One table of an export has no metadata (units, signs) and no other sensors: the error says
  /// to give the export, instead of a zip-reading error about a plain CSV.
  func testOneTableOfAnExportIsAClearError() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      "time,seconds_elapsed,z,y,x\n1610000000000000000,0,9.8,0,0\n",
      to: "export/TotalAcceleration.csv")
    XCTAssertThrowsError(try RecordingReader.open(url)) { error in
      XCTAssertTrue("\(error)".contains("give the export itself"), "\(error)")
      XCTAssertTrue(
        "\(error)".contains(folder.url.appendingPathComponent("export").path), "\(error)")
    }
  }

  func testWithoutARawFileTheAccelerometerIsUserAccelerationPlusGravity() throws {
    let folder = try RecordingFixtureFolder()
    // Android schema 2: linear acceleration and gravity, both in Android's (specific-force) sign.
    try folder.write(
      "version,device name,recording time,platform\n2,SM-N960F,2021-00-12_21-12-33,android\n",
      to: "v2/Metadata.csv")
    try folder.write(
      "time,z,y,x\n1000000000,0.5,0,0\n1010000000,0.25,0,0\n1020000000,0,0,1\n",
      to: "v2/Accelerometer.csv")
    try folder.write("time,z,y,x\n1000000000,9.75,0,0\n1020000000,9.5,0,0\n", to: "v2/Gravity.csv")
    var stream = try RecordingReader.open(folder.url.appendingPathComponent("v2"))
    XCTAssertNotNil(stream.descriptor.metadata["accelerometerSource"])
    let samples = try stream.collect()
    // 1.01 s has gravity 10 ms away on either side: the earlier one is added on a tie.
    XCTAssertEqual(
      samples.map(\.timestamp), [1, 1.01, 1.02], "each paired with the nearest gravity")
    XCTAssertEqual(
      samples.map(\.accelerometer), [SIMD3(0, 0, 10.25), SIMD3(0, 0, 10), SIMD3(1, 0, 9.5)])

    // iOS without AccelerometerUncalibrated: Core Motion's sign, so the sum is negated.
    var files = iOSFiles().filter { $0.0 != "AccelerometerUncalibrated.csv" }
    files.append(("Gravity.csv", "time,seconds_elapsed,z,y,x\n1745877875782820400,0.03,-9.7,0,0\n"))
    let zip = try folder.writeZip(files, to: "ios-no-raw.zip")
    let accelerometer = try RecordingReader.readSamples(zip).compactMap(\.accelerometer)
    XCTAssertEqual(accelerometer.count, 1)
    XCTAssertEqual(accelerometer[0].x, -0.1, accuracy: 1e-12)  // sums of decimal fractions
    XCTAssertEqual(accelerometer[0].z, 9.6, accuracy: 1e-12)
  }

  func testMalformedRowInOneSensorFileNamesThatFileAndLine() throws {
    let folder = try RecordingFixtureFolder()
    var files = iOSFiles()
    files[3] = (
      "GyroscopeUncalibrated.csv",
      "time,seconds_elapsed,z,y,x\n1745877875782820400,0.03,0.3,0.2,0.1\n1745877875787820400,0.04,0.6,oops,0.4\n"
    )
    let zip = try folder.writeZip(files, to: "bad.zip")
    var stream = try RecordingReader.open(zip)
    XCTAssertThrowsError(try stream.collect()) { error in
      let error = error as? RecordingError
      XCTAssertEqual(error?.kind, .malformedRow)
      XCTAssertEqual(error?.line, 3)
      XCTAssertEqual(error?.column, "y")
      XCTAssertTrue(
        error?.file.hasSuffix("bad.zip/GyroscopeUncalibrated.csv") ?? false,
        "\(String(describing: error))")
    }
  }

  func testExportWithoutRawSensorsIsAClearError() throws {
    let folder = try RecordingFixtureFolder()
    try folder.write("version,platform\n3,ios\n", to: "x/Metadata.csv")
    try folder.write("time,seconds_elapsed,z,y,x\n1,0,0,0,0\n", to: "x/Accelerometer.csv")
    XCTAssertThrowsError(try RecordingReader.open(folder.url.appendingPathComponent("x"))) {
      error in
      XCTAssertTrue("\(error)".contains("no raw sensor files"), "\(error)")
    }
  }
}
