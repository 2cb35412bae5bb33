// SPDX-License-Identifier: Apache-2.0

import Foundation
import Geomagnetism
import MotionFusion
import MotionMath
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// Device motion: unit and sign conventions, reference frames, heading, errors, NaN safety.
final class CMDeviceMotionTests: XCTestCase {
  private let environmentProvider = CMMotionManager.declinationProvider

  override func tearDown() {
    CMMotionManager.declinationProvider = environmentProvider
    super.tearDown()
  }

  /// Runs device motion over `samples` for `duration` seconds and returns what the handler got.
  private func deviceMotion(
    _ samples: [MotionSample], sensors: SensorSet = .nineAxis,
    frame: CMAttitudeReferenceFrame = .xArbitraryZVertical, duration: Double = 1
  ) -> (motions: [CMDeviceMotion], errors: [NSError]) {
    let clock = VirtualClock()
    let manager = CMMotionManager(
      source: Synthetic.player(samples, sensors: sensors, clock: clock))
    let queue = makeSerialQueue()
    let motions = Collector<CMDeviceMotion>()
    let errors = Collector<NSError>()
    manager.startDeviceMotionUpdates(using: frame, to: queue) { motion, error in
      if let motion { motions.append(motion) }
      if let error { errors.append(error as NSError) }
    }
    clock.advance(by: duration)
    queue.waitUntilAllOperationsAreFinished()
    manager.stopDeviceMotionUpdates()
    return (motions.all, errors.all)
  }

  func testFaceUpReadsMinusOneGOnZ() throws {
    let clock = VirtualClock()
    let manager = CMMotionManager(
      source: Synthetic.player(Synthetic.still(Synthetic.faceUp, count: 20), clock: clock))
    manager.startAccelerometerUpdates()
    clock.advance(by: 0.1)
    let acceleration = try XCTUnwrap(manager.accelerometerData).acceleration
    // Exact synthetic data: only rounding.
    XCTAssertVector(acceleration.vector, SIMD3(0, 0, -1), accuracy: 1e-12)

    let motion = try XCTUnwrap(
      deviceMotion(Synthetic.still(Synthetic.faceUp, count: 20)).motions.last)
    XCTAssertVector(motion.gravity.vector, SIMD3(0, 0, -1), accuracy: 1e-9)
    XCTAssertVector(motion.userAcceleration.vector, .zero, accuracy: 1e-9)
  }

  func testUprightPortraitReadsMinusOneGOnY() throws {
    let motion = try XCTUnwrap(
      deviceMotion(Synthetic.still(Synthetic.portrait, count: 20)).motions.last)
    XCTAssertVector(motion.gravity.vector, SIMD3(0, -1, 0), accuracy: 1e-9)
    XCTAssertEqual(motion.attitude.pitch, .pi / 2, accuracy: 1e-6)
  }

  func testFreeFallHasZeroAccelerationAndUserAccelerationMinusGravity() throws {
    // Half a second face up to settle the attitude, then free fall (specific force zero).
    var samples = Synthetic.still(.identity, count: 50)
    for i in 50..<60 {
      samples.append(
        Synthetic.sample(
          at: 1000 + Double(i) / 100, earthFromSensor: .identity, specificForceInEarth: .zero))
    }
    let clock = VirtualClock()
    let manager = CMMotionManager(source: Synthetic.player(samples, clock: clock))
    manager.startAccelerometerUpdates()
    manager.startDeviceMotionUpdates()
    clock.advance(by: 0.595)
    let raw = try XCTUnwrap(manager.accelerometerData).acceleration
    XCTAssertVector(raw.vector, .zero, accuracy: 1e-12)
    let motion = try XCTUnwrap(manager.deviceMotion)
    XCTAssertEqual(motion.timestamp, 1000.59, accuracy: 1e-9)
    // The filter ignores the zero-g samples for tilt, so gravity stays straight down.
    XCTAssertVector(motion.gravity.vector, SIMD3(0, 0, -1), accuracy: 1e-6)
    XCTAssertVector(motion.userAcceleration.vector, -motion.gravity.vector, accuracy: 1e-12)
  }

  func testRawAccelerationIsGravityPlusUserAcceleration() throws {
    // A tilted device being pushed: specific force = up·g + push, in the earth frame.
    let attitude = AttitudeAngles(roll: 0.4, pitch: -0.3, yaw: 1.0).quaternion
    let samples = (0..<100).map { i in
      Synthetic.sample(
        at: Double(i) / 100, earthFromSensor: attitude,
        specificForceInEarth: SIMD3(0.8, -0.5, Units.standardGravity + 0.3 * sin(Double(i))))
    }
    let clock = VirtualClock()
    let manager = CMMotionManager(source: Synthetic.player(samples, clock: clock))
    let queue = makeSerialQueue()
    let pairs = Collector<(CMAccelerometerData, CMDeviceMotion)>()
    manager.startDeviceMotionUpdates(to: queue) { motion, _ in
      // Pull the accelerometer of the same instant from the pull property inside the handler is
      // racy; compare with the source sample instead.
      let sample = samples.first { abs($0.timestamp - motion!.timestamp) < 1e-9 }!
      let raw = CMAccelerometerData(
        acceleration: CMAcceleration(
          Units.coreMotionAcceleration(fromSpecificForce: sample.accelerometer!)),
        timestamp: sample.timestamp)
      pairs.append((raw, motion!))
    }
    clock.advance(by: 1)
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(pairs.count, 100)
    for (raw, motion) in pairs.all {
      XCTAssertVector(
        motion.gravity.vector + motion.userAcceleration.vector, raw.acceleration.vector,
        accuracy: 1e-12)
      XCTAssertEqual(motion.gravity.vector.length, 1, accuracy: 1e-12)
    }
  }

  func testRotationRateIsTheRawRateBeforeABiasIsLearnt() throws {
    let bias = SIMD3<Double>(0.01, -0.02, 0.005)
    let samples = (0..<20).map { i in
      Synthetic.sample(at: Double(i) / 100, earthFromSensor: .identity, gyroscope: bias)
    }
    let motion = try XCTUnwrap(deviceMotion(samples).motions.last)
    // The estimator learns a bias only after 1.5 s of rest, so here its bias is 0 and the
    // rotation rate is the raw rate.
    XCTAssertVector(motion.rotationRate.vector, bias, accuracy: 1e-12)
  }

  /// `CMDeviceMotion.rotationRate` is the gyroscope's rate less the estimated bias (Apple's raw
  /// `CMGyroData` keeps it). Tolerance 1e-15: one subtraction per axis.
  func testRotationRateIsTheGyroscopeLessTheEstimatedBias() throws {
    let estimate = DeviceMotionEstimate(
      timestamp: 1, earthFromSensor6D: .identity, earthFromSensor9D: .identity,
      hasMagneticHeading: false, gyroscope: SIMD3(0.1, -0.2, 0.3),
      gyroscopeBias: SIMD3(0.01, 0.02, 0.03), accelerometer: SIMD3(0, 0, 9.81),
      calibratedMagneticField: nil, magneticCalibrationAccuracy: .uncalibrated,
      needsCalibrationMotion: false, headingUncertainty: nil)
    let motion = try XCTUnwrap(
      ReferenceFrameAligner(frame: .xArbitraryZVertical).deviceMotion(from: estimate))
    XCTAssertVector(motion.rotationRate.vector, SIMD3(0.09, -0.22, 0.27), accuracy: 1e-15)
  }

  /// At rest the estimator learns a constant gyroscope offset, and device motion's rotation rate
  /// falls to a tenth of it within 10 s while the raw rate keeps it.
  func testAConstantGyroscopeOffsetAtRestLeavesDeviceMotionsRate() throws {
    let bias = SIMD3<Double>(0.01, -0.02, 0.005)  // 0.3–1.1 °/s
    let samples = (0..<1000).map { i in
      Synthetic.sample(at: Double(i) / 100, earthFromSensor: .identity, gyroscope: bias)
    }
    let motion = try XCTUnwrap(deviceMotion(samples, duration: 10).motions.last)
    XCTAssertLessThan(motion.rotationRate.vector.length, 0.1 * bias.length)
  }

  func testArbitraryFrameStartsAtZeroYawAndHasNegativeHeading() throws {
    let turned = Quaternion.aboutZ(1.2) * Quaternion(angle: 0.3, axis: SIMD3(1, 0, 0))
    for frame in [CMAttitudeReferenceFrame.xArbitraryZVertical, .xArbitraryCorrectedZVertical] {
      let result = deviceMotion(Synthetic.still(turned, count: 30), frame: frame)
      XCTAssertTrue(result.errors.isEmpty)
      let first = try XCTUnwrap(result.motions.first)
      XCTAssertEqual(first.attitude.yaw, 0, accuracy: 1e-9, "frame \(frame.rawValue)")
      XCTAssertEqual(first.attitude.pitch, 0.3, accuracy: 1e-6)
      XCTAssertTrue(result.motions.allSatisfy { $0.heading < 0 }, "frame \(frame.rawValue)")
      XCTAssertEqual(first.heading, -1)
    }
  }

  func testMagneticNorthFrameHasTheTrueYawAndCompassHeading() throws {
    // Flat, turned 30° counter-clockwise from magnetic north: x points 30° west of north, the top
    // (+y) points 30° west of west, a bearing of 240°.
    let yaw = 30 * Units.radiansPerDegree
    let result = deviceMotion(
      Synthetic.still(.aboutZ(yaw), count: 30), frame: .xMagneticNorthZVertical)
    let motion = try XCTUnwrap(result.motions.last)
    XCTAssertEqual(motion.attitude.yaw, yaw, accuracy: 1e-6)
    XCTAssertEqual(motion.heading, 240, accuracy: 1e-4)
    XCTAssertNotEqual(motion.magneticField.accuracy, .high, "the baseline filter is uncalibrated")
    XCTAssertVector(
      motion.magneticField.field.vector,
      Quaternion.aboutZ(yaw).conjugate.act(on: Synthetic.earthField), accuracy: 1e-9)
  }

  /// The heading before 2026-12-01, the bearing of the top edge (+y) alone: `270° − yaw`.
  private func topEdgeHeading(_ referenceFromDevice: Quaternion) -> Double {
    let yaw = AttitudeAngles(referenceFromDevice).yaw * Units.degreesPerRadian
    let bearing = (270 - yaw).truncatingRemainder(dividingBy: 360)
    return bearing < 0 ? bearing + 360 : bearing
  }

  /// The smaller angle between two bearings, degrees.
  private func bearingDifference(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
  }

  private func aboutX(_ degrees: Double) -> Quaternion {
    Quaternion(angle: degrees * Units.radiansPerDegree, axis: SIMD3(1, 0, 0))
  }

  private func aboutY(_ degrees: Double) -> Quaternion {
    Quaternion(angle: degrees * Units.radiansPerDegree, axis: SIMD3(0, 1, 0))
  }

  func testHeadingOfAFlatDeviceIsItsTopEdgeBearingWhateverTheRoll() {
    // Top toward north: x toward east (yaw −90°); top toward east: x toward south.
    XCTAssertEqual(ReferenceFrameAligner.heading(of: .aboutZ(-.pi / 2)), 0, accuracy: 1e-9)
    XCTAssertEqual(ReferenceFrameAligner.heading(of: .aboutZ(.pi)), 90, accuracy: 1e-9)
    // Face up, face down and rolled about the top–bottom axis (the top edge stays level): the
    // value is unchanged from the top-edge bearing, within 1e-9°.
    for yaw in stride(from: -180.0, to: 180, by: 7.5) {
      for roll in [0.0, 180, -80, -45, -10, 10, 45, 80] {
        let pose = Quaternion.aboutZ(yaw * Units.radiansPerDegree) * aboutY(roll)
        let heading = ReferenceFrameAligner.heading(of: pose)
        XCTAssertTrue((0..<360).contains(heading), "\(heading)")
        XCTAssertLessThan(
          bearingDifference(heading, topEdgeHeading(pose)), 1e-9, "yaw \(yaw)°, roll \(roll)°")
        XCTAssertLessThan(
          bearingDifference(heading, ReferenceFrameAligner.heading(of: .aboutZ(yaw * .pi / 180))),
          1e-9, "a roll alone does not change it: yaw \(yaw)°, roll \(roll)°")
      }
    }
  }

  func testHeadingOfAnUprightDeviceIsWhereItsCameraLooks() {
    // Synthetic.portrait stands the device up with the screen east, the camera looking west;
    // turned by 270° − b about z the camera looks toward bearing b. The top edge points at the
    // sky there, and its bearing was whatever the attitude's rounding made it (205°–228° on
    // simulator:portrait); leaned 2° either way it is the camera's bearing or the opposite one.
    for (bearing, name) in [(0.0, "N"), (90, "E"), (180, "S"), (270, "W")] {
      let facing = Quaternion.aboutZ((270 - bearing) * Units.radiansPerDegree)
      for lean in [-2.0, -0.5, 0, 0.5, 2] {
        // Leaned back (the top edge past the vertical) or forward.
        let heading = ReferenceFrameAligner.heading(of: facing * aboutX(90 + lean))
        XCTAssertLessThan(
          bearingDifference(heading, bearing), 0.5, "facing \(name), leaned \(lean)°: \(heading)")
      }
    }
  }

  func testHeadingOfAnUprightDeviceThroughTheFusion() throws {
    // Upright facing north, leaned back 1° (the top edge just past the vertical): the estimate's
    // heading is north, where the top edge's bearing is south.
    let pose = Quaternion.aboutZ(-.pi / 2) * aboutX(91)
    XCTAssertEqual(bearingDifference(topEdgeHeading(pose), 180), 0, accuracy: 1e-6)
    let result = deviceMotion(Synthetic.still(pose, count: 30), frame: .xMagneticNorthZVertical)
    let motion = try XCTUnwrap(result.motions.last)
    XCTAssertLessThan(bearingDifference(motion.heading, 0), 0.5, "\(motion.heading)")
  }

  func testHeadingIsContinuousWhileTheTopEdgeRises() {
    // Pitched from flat (0°) to upright (90°) in steps of 0.1°, at several yaws and rolls: no
    // step over 5°, from the top edge's bearing to the camera's.
    for yaw in [0.0, 100, 215] {
      for roll in [-60.0, -20, 0, 20, 60] {
        let turn = Quaternion.aboutZ(yaw * Units.radiansPerDegree)
        var previous = ReferenceFrameAligner.heading(of: turn * aboutY(roll))
        XCTAssertLessThan(bearingDifference(previous, topEdgeHeading(turn * aboutY(roll))), 1e-9)
        var largest = 0.0
        for step in 1...900 {
          let heading = ReferenceFrameAligner.heading(
            of: turn * aboutX(Double(step) / 10) * aboutY(roll))
          largest = max(largest, bearingDifference(heading, previous))
          previous = heading
        }
        XCTAssertLessThanOrEqual(largest, 5, "yaw \(yaw)°, roll \(roll)°")
        // Upright with that roll the camera looks along the turned −z.
        let back = (turn * aboutX(90) * aboutY(roll)).act(on: SIMD3(0, 0, -1))
        var camera = atan2(-back.y, back.x) * Units.degreesPerRadian
        if camera < 0 { camera += 360 }
        XCTAssertLessThan(bearingDifference(previous, camera), 1e-6, "yaw \(yaw)°, roll \(roll)°")
      }
    }
  }

  func testHeadingTurnsByAHalfTurnInTwoPosesOnly() {
    // The documentation names the poses where `top + |top.z| · back` has no horizontal part:
    // turned a whole turn about the device's x axis (the top edge rising over the vertical and
    // back), 0.1° at a time, the heading steps by 180° at −51.8° (face up, the top edge 51.8°
    // below the horizontal) and at 128.2° (the top edge 51.8° above it, the screen 38.2° below
    // it), and nowhere else; rolled out of that plane it does not step at all.
    for yaw in [0.0, 100, 215] {
      for roll in [0.0, -60, -20, -5, 5, 20, 60, 90] {
        let turn = Quaternion.aboutZ(yaw * Units.radiansPerDegree)
        var previous = ReferenceFrameAligner.heading(of: turn * aboutX(-180) * aboutY(roll))
        var steps: [Double] = []
        for step in 1...3600 {
          let pitch = -180 + Double(step) / 10
          let heading = ReferenceFrameAligner.heading(of: turn * aboutX(pitch) * aboutY(roll))
          let change = bearingDifference(heading, previous)
          if change > 5 {
            steps.append(pitch)
            XCTAssertEqual(change, 180, accuracy: 5, "yaw \(yaw)°, pitch \(pitch)°")
          }
          previous = heading
        }
        let expected: [Double] = roll == 0 ? [-51.8, 128.2] : []
        XCTAssertEqual(steps.count, expected.count, "yaw \(yaw)°, roll \(roll)°: \(steps)")
        for (step, pose) in zip(steps, expected) {
          XCTAssertEqual(step, pose, accuracy: 0.15, "yaw \(yaw)°, roll \(roll)°")
        }
      }
    }
  }

  func testTrueNorthAddsTheEastDeclinationToTheHeading() throws {
    CMMotionManager.declinationProvider = { 10 }
    let samples = Synthetic.still(.identity, count: 30)
    let clock = VirtualClock()
    let source = Synthetic.player(samples, clock: clock)
    let manager = CMMotionManager(source: source)
    XCTAssertTrue(manager.supportedAttitudeReferenceFrames.contains(.xTrueNorthZVertical))
    let magnetic = deviceMotion(samples, frame: .xMagneticNorthZVertical).motions.last!
    let truth = deviceMotion(samples, frame: .xTrueNorthZVertical).motions.last!
    // Device x on magnetic north, which lies 10° east of true north: true yaw is −10°.
    XCTAssertEqual(magnetic.attitude.yaw, 0, accuracy: 1e-9)
    XCTAssertEqual(truth.attitude.yaw, -10 * Units.radiansPerDegree, accuracy: 1e-9)
    XCTAssertEqual(magnetic.heading, 270, accuracy: 1e-9)
    XCTAssertEqual(truth.heading, 280, accuracy: 1e-9)
  }

  func testDeclinationComesFromTheLocationEnvironmentVariable() throws {
    // Boulder, Colorado: WMM2025 puts magnetic north about 7.5° east of true north in 2025–2026.
    let provider = try XCTUnwrap(
      CMMotionManager.declinationProvider(environment: [
        "COREMOTION_LOCATION": "40.015,-105.27,1655"
      ]))
    let declination = try XCTUnwrap(provider())
    let location = try GeographicLocation(latitude: 40.015, longitude: -105.27, altitude: 1655)
    // The same model at (almost) the same instant: a day changes the value by under 0.001°.
    XCTAssertEqual(declination, magneticDeclination(at: location, date: Date()), accuracy: 1e-3)
    XCTAssertGreaterThan(declination, 5)
    XCTAssertLessThan(declination, 10)
    XCTAssertNil(CMMotionManager.declinationProvider(environment: [:]))
    XCTAssertNil(
      CMMotionManager.declinationProvider(environment: ["COREMOTION_LOCATION": "north pole"]))
  }

  func testUnavailableFrameDeliversOneErrorAndNoData() {
    CMMotionManager.declinationProvider = nil
    // No declination: true north unavailable.
    let withMagnetometer = deviceMotion(
      Synthetic.still(.identity, count: 30), frame: .xTrueNorthZVertical)
    XCTAssertTrue(withMagnetometer.motions.isEmpty)
    XCTAssertEqual(
      withMagnetometer.errors.map(\.code), [Int(CMErrorTrueNorthNotAvailable.rawValue)])
    XCTAssertEqual(withMagnetometer.errors.first?.domain, CMErrorDomain)

    let inertial = Synthetic.still(.identity, count: 30, sensors: .inertial)
    let noMagnetometer = deviceMotion(
      inertial, sensors: .inertial, frame: .xMagneticNorthZVertical)
    XCTAssertTrue(noMagnetometer.motions.isEmpty)
    XCTAssertEqual(noMagnetometer.errors.map(\.code), [Int(CMErrorNotAvailable.rawValue)])

    let twoFrames = deviceMotion(
      Synthetic.still(.identity, count: 30),
      frame: [.xArbitraryZVertical, .xMagneticNorthZVertical])
    XCTAssertEqual(twoFrames.errors.map(\.code), [Int(CMErrorInvalidParameter.rawValue)])
  }

  func testAttitudeReferenceFrameRemembersTheLastFrameUsed() {
    let clock = VirtualClock()
    let manager = CMMotionManager(
      source: Synthetic.player(Synthetic.still(.identity, count: 30), clock: clock))
    XCTAssertEqual(manager.attitudeReferenceFrame, .xArbitraryZVertical)
    manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
    XCTAssertEqual(manager.attitudeReferenceFrame, .xMagneticNorthZVertical)
    clock.advance(by: 0.1)
    manager.stopDeviceMotionUpdates()
    XCTAssertEqual(manager.attitudeReferenceFrame, .xMagneticNorthZVertical)
    // A later start without a frame uses the remembered one: heading is valid.
    manager.startDeviceMotionUpdates()
    clock.advance(by: 0.1)
    XCTAssertGreaterThanOrEqual(manager.deviceMotion?.heading ?? -1, 0)
    XCTAssertFalse(manager.showsDeviceMovementDisplay)
    manager.showsDeviceMovementDisplay = true
    XCTAssertTrue(manager.showsDeviceMovementDisplay)
  }

  /// A refused frame (not a single frame, or not available) is not remembered as the frame in
  /// use: after `startDeviceMotionUpdates(using: CMMotionManager.availableAttitudeReferenceFrames(),
  /// …)` ended with `CMErrorInvalidParameter`, ``attitudeReferenceFrame`` returned the set, and
  /// every later start without a frame was refused in its turn (in pull mode, silently).
  func testARefusedFrameIsNotRememberedAsTheFrameInUse() {
    CMMotionManager.declinationProvider = nil
    let clock = VirtualClock()
    let manager = CMMotionManager(
      source: Synthetic.player(Synthetic.still(.identity, count: 40), clock: clock))
    let queue = makeSerialQueue()
    manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
    clock.advance(by: 0.1)
    manager.stopDeviceMotionUpdates()
    let lastBefore = manager.deviceMotion?.timestamp ?? .infinity
    let refusals: [CMAttitudeReferenceFrame] = [
      [.xArbitraryZVertical, .xMagneticNorthZVertical], .xTrueNorthZVertical,
    ]
    for refused in refusals {
      let errors = Collector<Int>()
      manager.startDeviceMotionUpdates(using: refused, to: queue) { _, error in
        if let error { errors.append((error as NSError).code) }
      }
      queue.waitUntilAllOperationsAreFinished()
      manager.stopDeviceMotionUpdates()
      XCTAssertEqual(errors.count, 1, "refused: \(refused)")
      XCTAssertEqual(manager.attitudeReferenceFrame, .xMagneticNorthZVertical, "after \(refused)")
    }
    // A start without a frame uses the last one that ran.
    manager.startDeviceMotionUpdates()
    clock.advance(by: 0.1)
    manager.stopDeviceMotionUpdates()
    XCTAssertGreaterThan(manager.deviceMotion?.timestamp ?? 0, lastBefore, "no new update")
    XCTAssertGreaterThanOrEqual(manager.deviceMotion?.heading ?? -1, 0)
  }

  func testNonFiniteInputNeverReachesTheHandler() {
    var samples = Synthetic.still(.identity, count: 40)
    samples[10].gyroscope = SIMD3(.nan, 0, 0)
    samples[20].accelerometer = SIMD3(.infinity, 0, 0)
    samples[30].magnetometer = SIMD3(0, .nan, 0)
    let result = deviceMotion(samples, frame: .xMagneticNorthZVertical)
    XCTAssertFalse(result.motions.isEmpty)
    for motion in result.motions {
      let q = motion.attitude.quaternion
      XCTAssertTrue([q.x, q.y, q.z, q.w, motion.heading].allSatisfy(\.isFinite))
      XCTAssertTrue(motion.gravity.vector.isFinite && motion.userAcceleration.vector.isFinite)
      XCTAssertTrue(motion.rotationRate.vector.isFinite)
    }
    XCTAssertFalse(result.motions.contains { abs($0.timestamp - 1000.1) < 1e-9 }, "NaN gyro sample")
  }

  func testSeparatelyTickingSensorsProduceMotionAtGyroscopeSamples() throws {
    // Gyroscope at 100 Hz, accelerometer at 50 Hz, magnetometer at 20 Hz, each in its own sample.
    var samples: [MotionSample] = []
    for i in 0..<100 {
      let t = Double(i) / 100
      samples.append(Synthetic.sample(at: t, earthFromSensor: .aboutZ(0.5), sensors: .gyroscope))
      if i % 2 == 0 {
        samples.append(
          Synthetic.sample(at: t + 0.001, earthFromSensor: .aboutZ(0.5), sensors: .accelerometer))
      }
      if i % 5 == 0 {
        samples.append(
          Synthetic.sample(at: t + 0.002, earthFromSensor: .aboutZ(0.5), sensors: .magnetometer))
      }
    }
    let result = deviceMotion(samples, frame: .xMagneticNorthZVertical)
    // The first gyroscope sample comes before any accelerometer sample and is skipped.
    XCTAssertEqual(result.motions.count, 99)
    let last = try XCTUnwrap(result.motions.last)
    XCTAssertEqual(last.timestamp, 0.99, accuracy: 1e-9)
    XCTAssertEqual(last.attitude.yaw, 0.5, accuracy: 1e-6)
  }

  func testMagneticFramesStartWithTheFirstMagneticHeading() throws {
    // The magnetometer starts 0.2 s after the other sensors.
    let samples = (0..<60).map { i -> MotionSample in
      var sample = Synthetic.sample(at: Double(i) / 100, earthFromSensor: .aboutZ(0.5))
      if i < 20 { sample.magnetometer = nil }
      return sample
    }
    let magnetic = deviceMotion(samples, frame: .xMagneticNorthZVertical)
    let first = try XCTUnwrap(magnetic.motions.first)
    XCTAssertEqual(first.timestamp, 0.2, accuracy: 1e-9)
    XCTAssertEqual(first.attitude.yaw, 0.5, accuracy: 1e-9)
    XCTAssertEqual(magnetic.motions.count, 40)
    // The arbitrary frame does not wait.
    XCTAssertEqual(deviceMotion(samples).motions.count, 60)
  }

  func testManagersOfOneSourceShareOneFusionPipeline() {
    let clock = VirtualClock()
    let source = CountingSource(
      Synthetic.player(Synthetic.still(.identity, count: 100), clock: clock))
    let first = CMMotionManager(source: source)
    let second = CMMotionManager(source: source)
    first.startDeviceMotionUpdates()
    second.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
    XCTAssertEqual(source.activeSubscriptions, 1)
    clock.advance(by: 0.2)
    XCTAssertNotNil(first.deviceMotion)
    XCTAssertNotNil(second.deviceMotion)
    XCTAssertLessThan(first.deviceMotion!.heading, 0)
    XCTAssertGreaterThanOrEqual(second.deviceMotion!.heading, 0)
    first.stopDeviceMotionUpdates()
    XCTAssertEqual(source.activeSubscriptions, 1)
    second.stopDeviceMotionUpdates()
    XCTAssertEqual(source.activeSubscriptions, 0)
  }

  func testDeviceMotionPacing() {
    let clock = VirtualClock()
    let manager = CMMotionManager(
      source: Synthetic.player(Synthetic.still(.identity, count: 400), clock: clock))
    manager.deviceMotionUpdateInterval = 1.0 / 30
    let queue = makeSerialQueue()
    let stamps = Collector<Double>()
    manager.startDeviceMotionUpdates(to: queue) { motion, _ in stamps.append(motion!.timestamp) }
    clock.advance(by: 3.995)
    queue.waitUntilAllOperationsAreFinished()
    let all = stamps.all
    let average = (all.last! - all.first!) / Double(all.count - 1)
    // Deliveries fall on 10 ms samples; their average spacing is the interval within 5 %.
    XCTAssertEqual(average, 1.0 / 30, accuracy: 0.05 / 30)
    XCTAssertEqual(all.count, 120)
  }
}
