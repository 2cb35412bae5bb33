// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath
import MotionSensors
import XCTest

final class MagnetometerCalibrationSimulationTests: XCTestCase {
  func testDiagnostics() throws {
    let name = ProcessInfo.processInfo.environment["MAGCAL_SCENARIO"] ?? "figure8"
    var stream = try SimulatedSensorStream(named: name)
    var parameters = AttitudeEstimator.Parameters.default
    if ProcessInfo.processInfo.environment["MAGCAL_CAL"] == "1" { parameters.usesCalibratedFieldForHeading = true }
    var estimator = DeviceMotionEstimator(samplePeriod: 0.01, parameters: parameters)
    var nextPrint = 0.0
    while let s = try stream.next() {
      estimator.update(timestamp: s.timestamp, gyroscope: s.gyroscope!, accelerometer: s.accelerometer!, magnetometer: s.magnetometer)
      if s.timestamp >= nextPrint {
        nextPrint += 1
        let truth = s.groundTruth!.earthFromSensor!
        let err = truth * estimator.earthFromSensor9D.conjugate
        let heading = 2 * atan2(err.z, err.w) * 180 / .pi
        let c = estimator.attitudeEstimator.state.magnetometerCalibrator
        let cal = estimator.calibratedMagneticField!
        let e = estimator.attitudeEstimator.state
        print(String(format: "t=%5.1f hdg=%7.2f acc=%d exc=%.2f res=%.3f |h|=%.1f off=(%.1f,%.1f,%.1f) |cal|=%.1f dist=%d refN=%.1f curN=%.1f",
          s.timestamp, heading, c.accuracy.rawValue, c.excitation, c.relativeResidual, c.fieldNorm,
          c.hardIronOffset.x, c.hardIronOffset.y, c.hardIronOffset.z, cal.length, e.isMagneticDisturbanceDetected ? 1 : 0,
          e.referenceFieldNorm, e.currentFieldNorm))
      }
    }
  }
}

final class MagcalBroadDiagnostics: XCTestCase {
  func testBroadDiagnostics() throws {
    guard let path = ProcessInfo.processInfo.environment["MAGCAL_BROAD"] else { return }
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var estimator = DeviceMotionEstimator(samplePeriod: 1.0 / 286)
    var lastAcc = MagneticCalibrationAccuracy.uncalibrated
    var lastOff = SIMD3<Double>.zero
    for line in text.split(separator: "\n").dropFirst() {
      let v = line.split(separator: ",").map { Double($0) ?? .nan }
      estimator.update(timestamp: v[0], gyroscope: SIMD3(v[1], v[2], v[3]), accelerometer: SIMD3(v[4], v[5], v[6]), magnetometer: SIMD3(v[7], v[8], v[9]))
      let cc = estimator.attitudeEstimator.state.magnetometerCalibrator
      if cc.accuracy != lastAcc || cc.hardIronOffset != lastOff {
        lastAcc = cc.accuracy; lastOff = cc.hardIronOffset
        let c = estimator.attitudeEstimator.state.magnetometerCalibrator
        let e = estimator.attitudeEstimator.state
        let raw = SIMD3(v[7], v[8], v[9])
        print(String(format: "t=%6.1f acc=%d exc=%.2f res=%.3f |h|=%.1f off=(%.1f,%.1f,%.1f) |raw|=%.1f dist=%d refN=%.1f curN=%.1f hoff=%.1f",
          v[0], c.accuracy.rawValue, c.excitation, c.relativeResidual, c.fieldNorm,
          c.hardIronOffset.x, c.hardIronOffset.y, c.hardIronOffset.z, raw.length, e.isMagneticDisturbanceDetected ? 1 : 0,
          e.referenceFieldNorm, e.currentFieldNorm, e.headingOffset * 180 / .pi))
      }
    }
  }
}
