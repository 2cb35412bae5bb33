// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import XCTest

@testable import MotionSensors

/// `COREMOTION_SOURCE=replay:steps.csv` failed with "cannot tell the recording format" for the
/// shared `t,ax,ay,az[,pressure_hpa]` tables, which the evaluation tools read. The replay's reader
/// (`RecordingReader.openIncludingSharedTables`, what SourceComposition's replay calls) now falls
/// back to the shared layouts, converting to OpenCoreMotion's units as every reader does.
final class RecordingSharedTableReplayTests: XCTestCase {
  /// A steps table at rest (0, 0, 9.81 m/s², specific force) replays as specific force, which Core
  /// Motion's boundary (`Units.coreMotionAcceleration`, as CMMotionManager applies it) turns into
  /// (0, 0, −1) g with Apple's sign; the pressure column is read in kPa.
  func testASharedStepsTableReplaysInCoreMotionUnits() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write(
      "t,ax,ay,az,pressure_hpa\n0,0,0,9.81,1013.25\n0.01,0,0,9.81,\n0.02,0,0,9.81,1013.2\n",
      to: "steps.csv")
    XCTAssertThrowsError(try RecordingReader.open(url), "not a recording format by itself")

    var stream = try RecordingReader.openIncludingSharedTables(url)
    XCTAssertEqual(stream.format, .columns)
    XCTAssertEqual(stream.descriptor.sensors, [.accelerometer, .barometer])
    let samples = try stream.collect()
    XCTAssertEqual(samples.map(\.timestamp), [0, 0.01, 0.02])
    XCTAssertEqual(samples[0].accelerometer, SIMD3(0, 0, 9.81))
    XCTAssertEqual(samples[0].pressure!, 101.325, accuracy: 1e-12)
    XCTAssertNil(samples[1].pressure)
    let coreMotion = Units.coreMotionAcceleration(fromSpecificForce: samples[0].accelerometer!)
    XCTAssertEqual(coreMotion.x, 0, accuracy: 1e-12)
    XCTAssertEqual(coreMotion.y, 0, accuracy: 1e-12)
    XCTAssertEqual(coreMotion.z, -1, accuracy: 1e-3)
  }

  /// The same header over g with Apple's sign (MotionSense, iPhone loggers): face up at rest it
  /// reads (0, 0, −1). The first samples' median |a| (about 1, not 9.8) tells, and the table is
  /// read as g with Apple's sign: specific force (0, 0, +9.81 m/s²), so Core Motion's boundary
  /// gives back (0, 0, −1) g, not a device 1/9.8 as heavy and upside down.
  func testAnAppleGTableWithTheSameHeaderReplaysInItsOwnUnits() throws {
    let folder = try RecordingFixtureFolder()
    var text = "t,ax,ay,az\n"
    for index in 0..<600 { text += "\(Double(index) / 50),0.01,-0.02,-1.0\n" }
    let url = try folder.write(text, to: "motionsense.csv")
    var stream = try RecordingReader.openIncludingSharedTables(url)
    let samples = try stream.collect()
    XCTAssertEqual(samples.count, 600)
    for sample in [samples[0], samples[599]] {
      let force = try XCTUnwrap(sample.accelerometer)
      XCTAssertEqual(force.z, 9.80665, accuracy: 1e-9, "specific force, up at rest")
      let coreMotion = Units.coreMotionAcceleration(fromSpecificForce: force)
      XCTAssertEqual(coreMotion.x, 0.01, accuracy: 1e-12)
      XCTAssertEqual(coreMotion.y, -0.02, accuracy: 1e-12)
      XCTAssertEqual(coreMotion.z, -1, accuracy: 1e-12)
    }
  }

  /// A MotionSense table holds Apple's gravity beside its inputs, so its rows are Core Motion's
  /// device-motion instants, and the replay's fusion is told so (as for a device-motion CSV); a
  /// steps table without those columns keeps the raw sensors' timing.
  func testATableWithApplesGravityReplaysAsDeviceMotionInstants() throws {
    let folder = try RecordingFixtureFolder()
    var text = "t,ax,ay,az,gx,gy,gz,apple_gravity_x,apple_gravity_y,apple_gravity_z\n"
    for index in 0..<300 { text += "\(Double(index) / 50),0.01,-0.02,-1.0,0,0,0,0,0,-1\n" }
    let motionSense = try folder.write(text, to: "sub01_wlk_07.csv")
    let deviceMotion = try RecordingReader.openIncludingSharedTables(motionSense)
    XCTAssertEqual(deviceMotion.descriptor.sampleTiming, .deviceMotionInstants)
    XCTAssertEqual(deviceMotion.descriptor.sensors, [.accelerometer, .gyroscope])

    let steps = try folder.write("t,ax,ay,az,gx,gy,gz\n0,0,0,9.81,0,0,0\n", to: "ipol.csv")
    XCTAssertEqual(
      try RecordingReader.openIncludingSharedTables(steps).descriptor.sampleTiming, .sensorOutputs)
  }

  /// Played as a replay plays it (a StreamPlayer, here on a virtual clock), every row arrives.
  func testTheTablePlaysThroughAStreamPlayer() throws {
    let folder = try RecordingFixtureFolder()
    let url = try folder.write("t,ax,ay,az\n0,0,0,9.81\n0.01,0,0,9.81\n", to: "steps.csv")
    let clock = VirtualClock()
    let player = StreamPlayer(
      try RecordingReader.openIncludingSharedTables(url), pacing: .virtual(clock))
    let received = Locked<[MotionSample]>([])
    let subscription = player.subscribe(requestedSampleRate: 100) { event in
      if case .sample(let sample) = event { received.withLock { $0.append(sample) } }
    }
    clock.advance(by: 1)
    subscription.cancel()
    XCTAssertEqual(
      received.withLock { $0.map(\.accelerometer) }, [SIMD3(0, 0, 9.81), SIMD3(0, 0, 9.81)])
  }

  /// A recording format still wins (an OpenCoreMotion CSV is read as one), and a file matching no
  /// layout keeps the reader's "cannot tell the recording format" error.
  func testRecordingFormatsFirstAndUnknownTablesStillFail() throws {
    let folder = try RecordingFixtureFolder()
    let own = try folder.write(
      "# OpenCoreMotion CSV\nt,acc_x,acc_y,acc_z\n0,0,0,9.81\n", to: "own.csv")
    XCTAssertEqual(try RecordingReader.openIncludingSharedTables(own).format, .opencoremotion)
    let other = try folder.write("time,foo\n0,1\n", to: "other.csv")
    XCTAssertThrowsError(try RecordingReader.openIncludingSharedTables(other)) { error in
      XCTAssertEqual((error as? RecordingError)?.kind, .unknownFormat, "\(error)")
      XCTAssertTrue("\(error)".contains("cannot tell the recording format"), "\(error)")
    }
  }
}
