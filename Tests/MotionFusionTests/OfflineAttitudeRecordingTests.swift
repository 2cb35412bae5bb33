// SPDX-License-Identifier: Apache-2.0

import MotionMath
import MotionSensors
import XCTest

@testable import MotionFusion

/// `OfflineAttitudeRecording` holds a recording in single precision for the offline estimator:
/// the attitudes it gives match those from double-precision arrays, and it refuses what it
/// cannot hold.
final class OfflineAttitudeRecordingTests: XCTestCase {
  func testSinglePrecisionInputsGiveTheSameAttitudesAsDoubleArrays() throws {
    let seed: UInt64 = 0x0FF_11CE
    var stream = try SimulatedSensorStream(named: "figure8", seed: seed)
    var timestamps: [Double] = []
    var gyroscope: [SIMD3<Double>] = []
    var accelerometer: [SIMD3<Double>] = []
    var magnetometer: [SIMD3<Double>] = []
    var recording = OfflineAttitudeRecording(hasMagnetometer: true)
    var latestField: SIMD3<Double>?
    while let sample = try stream.next() {
      if let m = sample.magnetometer { latestField = m }
      guard let g = sample.gyroscope, let a = sample.accelerometer, let m = latestField else {
        continue
      }
      timestamps.append(sample.timestamp)
      gyroscope.append(g)
      accelerometer.append(a)
      magnetometer.append(m)
      XCTAssertTrue(
        recording.append(
          timestamp: sample.timestamp, gyroscope: g, accelerometer: a, magnetometer: m))
    }
    XCTAssertEqual(recording.count, timestamps.count)
    XCTAssertGreaterThan(recording.count, 1000)
    let period = 1 / stream.scenario.sampleRate
    let fromArrays = OfflineAttitudeEstimator.estimate(
      timestamps: timestamps, gyroscope: gyroscope, accelerometer: accelerometer,
      magnetometer: magnetometer, samplePeriod: period)
    let fromRecording = OfflineAttitudeEstimator.estimate(recording, samplePeriod: period)
    XCTAssertEqual(fromRecording.count, fromArrays.count)
    var largest = 0.0
    for (a, b) in zip(fromArrays, fromRecording) {
      largest = max(largest, a.angle(to: b) * Units.degreesPerRadian)
    }
    // Rounding the readings to 24 significant bits (far finer than the simulated phone's noise)
    // moves the attitudes by about as much as storing them in single precision does: 1.0e-5°
    // measured; bound 1e-3°.
    print("offline attitudes from single- vs double-precision inputs differ by at most \(largest)°")
    XCTAssertLessThan(largest, 1e-3, "largest difference \(largest)°, seed \(seed)")
  }

  func testItRefusesWhatItCannotHold() {
    var recording = OfflineAttitudeRecording(hasMagnetometer: false)
    let g = SIMD3(0.1, 0.2, 0.3)
    let a = SIMD3(0.0, 0.0, 9.81)
    XCTAssertTrue(recording.append(timestamp: 1, gyroscope: g, accelerometer: a, magnetometer: nil))
    // Time that does not move forward, or is not finite.
    XCTAssertFalse(
      recording.append(timestamp: 1, gyroscope: g, accelerometer: a, magnetometer: nil))
    XCTAssertFalse(
      recording.append(timestamp: .nan, gyroscope: g, accelerometer: a, magnetometer: nil))
    // Finite in double precision, infinite in single.
    XCTAssertFalse(
      recording.append(
        timestamp: 2, gyroscope: SIMD3(1e39, 0, 0), accelerometer: a, magnetometer: nil))
    // A magnetometer reading in a recording without one.
    XCTAssertFalse(
      recording.append(timestamp: 2, gyroscope: g, accelerometer: a, magnetometer: SIMD3(20, 0, 40))
    )
    XCTAssertEqual(recording.count, 1)
    XCTAssertTrue(recording.append(timestamp: 2, gyroscope: g, accelerometer: a, magnetometer: nil))
    XCTAssertEqual(recording.count, 2)
    // Readings come back as stored, within single precision.
    XCTAssertEqual(recording.gyroscope(at: 1).x, 0.1, accuracy: 1e-8)
    XCTAssertNil(recording.magnetometer(at: 1))
  }

  func testTheOfflineEstimateOfNothingIsEmpty() {
    let attitudes = OfflineAttitudeEstimator.estimate(
      OfflineAttitudeRecording(hasMagnetometer: true), samplePeriod: 0.01)
    XCTAssertTrue(attitudes.isEmpty)
    XCTAssertEqual(attitudes.gyroscopeBias, .zero)
  }
}

/// The last offline pass starts from the backward pass's magnetometer calibration only when the
/// first (forward) pass confirms it.
final class OfflineCalibrationConfirmationTests: XCTestCase {
  private func calibrator(
    offset: SIMD3<Double>, accuracy: MagneticCalibrationAccuracy
  )
    -> MagnetometerCalibrator
  {
    var calibrator = MagnetometerCalibrator()
    calibrator.hardIronOffset = offset
    calibrator.adoptedAccuracy = accuracy
    calibrator.accuracy = accuracy
    return calibrator
  }

  func testOnlyACalibrationBothPassesTrustAndShareIsSeeded() {
    let backward = calibrator(offset: SIMD3(12, -8, 20), accuracy: .medium)
    // The same offset within the calibrator's 5 µT tolerance.
    XCTAssertTrue(
      OfflineAttitudeEstimator.confirms(
        calibrator(offset: SIMD3(14, -6, 21), accuracy: .high), backward))
    // 6 µT apart.
    XCTAssertFalse(
      OfflineAttitudeEstimator.confirms(
        calibrator(offset: SIMD3(12, -8, 26), accuracy: .high), backward))
    // The forward pass never trusted a fit (as at 95 Hz on BROAD's stationary-magnet trial C).
    XCTAssertFalse(
      OfflineAttitudeEstimator.confirms(calibrator(offset: .zero, accuracy: .low), backward))
    XCTAssertFalse(
      OfflineAttitudeEstimator.confirms(
        backward, calibrator(offset: SIMD3(12, -8, 20), accuracy: .low)))
  }
}
