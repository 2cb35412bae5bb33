// SPDX-License-Identifier: Apache-2.0

import MotionSensors
import XCTest
import _LinuxIIOTestSupport

@testable import LinuxIIO

final class IIODiscoveryTests: XCTestCase {
  private func discover(_ tree: IIOFakeTree) throws -> [IIODeviceInfo] {
    try IIODiscovery(sysfsRoot: tree.sysfsRoot, devRoot: tree.devRoot, system: IIOSystem())
      .devices()
  }

  func testMpu6050IsOneDeviceWithAccelerometerGyroscopeAndTemperature() throws {
    let tree = try IIOFakeTree()
    try Fixtures.mpu6050(tree, mountMatrix: "0, 1, 0; -1, 0, 0; 0, 0, -1")
    let devices = try discover(tree)
    XCTAssertEqual(devices.count, 1)
    let mpu = try XCTUnwrap(devices.first)
    XCTAssertEqual(mpu.name, "mpu6050")
    XCTAssertEqual(mpu.index, 0)
    XCTAssertEqual(mpu.devicePath, tree.devRoot + "/iio:device0")
    XCTAssertEqual(mpu.sensors, [.accelerometer, .gyroscope, .thermometer])
    XCTAssertEqual(mpu.channels(of: .accelerometer).map(\.scale), [0.000598, 0.000598, 0.000598])
    XCTAssertEqual(mpu.channels(of: .gyroscope).first?.scale, 0.001064724)
    let temperature = try XCTUnwrap(mpu.channels(of: .temperature).first)
    XCTAssertEqual(temperature.offset, 7011)
    XCTAssertEqual(temperature.scanIndex, 3)
    XCTAssertEqual(mpu.timestampChannel?.scanIndex, 7)
    XCTAssertTrue(mpu.supportsBuffer)
    XCTAssertEqual(mpu.mountMatrix(for: .accelerometer).rows[0], SIMD3(0, 1, 0))
    XCTAssertEqual(mpu.mountMatrix(for: .gyroscope).rows[1], SIMD3(-1, 0, 0))
    XCTAssertEqual(mpu.samplingControls.first?.available?.bounds, 10...500)
    XCTAssertEqual(mpu.currentTrigger, "mpu6050-dev0")
    XCTAssertEqual(mpu.timestampClock, "realtime")
    // The listing shows the facts motionctl needs.
    let listing = mpu.description
    for fact in [
      "mpu6050", "0.000598", "0, 1, 0; -1, 0, 0; 0, 0, -1", "10 20 50 100 200 500",
      "/iio:device0",
    ] {
      XCTAssertTrue(listing.contains(fact), "listing lacks \(fact):\n\(listing)")
    }
  }

  func testHidHubIsThreeDevicesWithPerTypeRates() throws {
    let tree = try IIOFakeTree()
    try Fixtures.hidHub(tree)
    let devices = try discover(tree)
    XCTAssertEqual(devices.map(\.name), ["accel_3d", "gyro_3d", "magn_3d"])
    XCTAssertEqual(devices.map(\.sensors), [.accelerometer, .gyroscope, .magnetometer])
    XCTAssertEqual(
      devices[0].samplingControl(for: .accelerometer)?.attribute, "in_accel_sampling_frequency")
    XCTAssertEqual(devices[0].channels(of: .accelerometer).first?.scanType?.storageBits, 32)
    let assignments = IIOAssignment.assign(devices)
    XCTAssertEqual(assignments.map(\.device.name), ["accel_3d", "gyro_3d", "magn_3d"])
  }

  func testDevicesAreOrderedAndIdentifiedByNameNotIndex() throws {
    let tree = try IIOFakeTree()
    try Fixtures.bmp280(tree, index: 10)
    try Fixtures.mpu6050(tree, index: 2)
    let devices = try discover(tree)
    XCTAssertEqual(devices.map(\.directoryName), ["iio:device2", "iio:device10"])
    let source = try Fixtures.source(tree)
    XCTAssertEqual(source.name, "iio:mpu6050+bmp280")
    XCTAssertEqual(source.availableSensors, [.accelerometer, .gyroscope, .barometer, .thermometer])
    // Temperature comes from the IMU already read, not from a second device.
    XCTAssertEqual(source.assignments[0].kinds, [.accelerometer, .gyroscope, .temperature])
    XCTAssertEqual(source.assignments[1].kinds, [.pressure])
    XCTAssertEqual(source.supportedSampleRates, 10...500)
  }

  func testBaseAccelerometerOfA2in1IsUsedOnlyWithoutADisplayOne() throws {
    let tree = try IIOFakeTree()
    for (index, label) in [(0, "accel-base"), (1, "accel-display")] {
      try tree.addDevice(
        index: index, name: "accel_3d",
        attributes: [
          "label": label, "in_accel_x_raw": "0", "in_accel_y_raw": "0",
          "in_accel_z_raw": "0", "in_accel_scale": "0.009807",
        ])
    }
    let assignments = IIOAssignment.assign(try discover(tree))
    XCTAssertEqual(assignments.map(\.device.label), ["accel-display"])
    tree.removeDevice(1)
    XCTAssertEqual(IIOAssignment.assign(try discover(tree)).map(\.device.label), ["accel-base"])
  }

  func testNoMotionSensorsMeansNoSource() throws {
    let tree = try IIOFakeTree()
    XCTAssertNil(try Fixtures.sourceOrNil(tree), "empty root")
    // A SoC thermometer and an ADC are not motion sensors.
    try tree.addDevice(
      index: 0, name: "sun4i-gpadc", attributes: ["in_temp_raw": "2000", "in_voltage0_raw": "5"])
    XCTAssertNil(try Fixtures.sourceOrNil(tree))
    // A missing root is "no IIO here", not an error.
    XCTAssertNil(
      try IIOSensorSource.discover(
        sysfsRoot: tree.base + "/nonexistent", devRoot: tree.devRoot,
        configuration: IIOConfiguration()))
  }

  func testPerAxisScaleAndOffsetWinOverSharedOnes() throws {
    let tree = try IIOFakeTree()
    try tree.addDevice(
      index: 0, name: "lis3mdl",
      attributes: [
        "in_magn_x_raw": "100", "in_magn_y_raw": "200", "in_magn_z_raw": "300",
        "in_magn_scale": "0.000146", "in_magn_z_scale": "0.000200",
        "in_magn_offset": "-10", "in_magn_x_calibbias": "50",
        "in_magn_mount_matrix": "1, 0, 0; 0, 1, 0; 0, 0, 1",
      ])
    let magn = try XCTUnwrap(discover(tree).first).channels(of: .magnetometer)
    XCTAssertEqual(magn.map(\.scale), [0.000146, 0.000146, 0.000200])
    XCTAssertEqual(magn.map(\.offset), [-10, -10, -10])
  }

  /// A zero scale (0 or -0) is noted as unusable, as "nan" is, and the next candidate (the shared
  /// scale, else 1) used: it read every axis as zero for ever, silently.
  func testZeroScaleIsNotedAndSkipped() throws {
    let tree = try IIOFakeTree()
    try tree.addDevice(
      index: 0, name: "lis3mdl",
      attributes: [
        "in_magn_x_raw": "100", "in_magn_y_raw": "200", "in_magn_z_raw": "300",
        "in_magn_x_scale": "-0", "in_magn_scale": "0.000146", "in_accel_x_raw": "1",
        "in_accel_y_raw": "2", "in_accel_z_raw": "3", "in_accel_scale": "0",
      ])
    let device = try XCTUnwrap(discover(tree).first)
    XCTAssertEqual(device.channels(of: .magnetometer).map(\.scale), [0.000146, 0.000146, 0.000146])
    XCTAssertEqual(device.channels(of: .accelerometer).map(\.scale), [1, 1, 1])
    XCTAssertTrue(
      device.notes.contains { $0.contains("in_magn_x_scale") && $0.contains("zero scale") },
      "\(device.notes)")
    XCTAssertTrue(device.notes.contains { $0.contains("in_accel_scale") }, "\(device.notes)")
  }
}

extension Fixtures {
  static func sourceOrNil(_ tree: IIOFakeTree) throws -> IIOSensorSource? {
    try IIOSensorSource.discover(
      sysfsRoot: tree.sysfsRoot, devRoot: tree.devRoot, configuration: IIOConfiguration())
  }
}

final class IIODiscoveryLayoutTests: XCTestCase {
  /// Kernels ≥ 5.11 may only have `buffer0/` with the scan elements merged in.
  func testMergedBuffer0DirectoryIsUsed() throws {
    let tree = try IIOFakeTree()
    try tree.addDevice(
      index: 0, name: "lsm6dsl_accel",
      attributes: [
        "in_accel_x_raw": "1", "in_accel_y_raw": "2", "in_accel_z_raw": "3",
        "in_accel_scale": "0.000598", "buffer0/enable": "0", "buffer0/length": "2",
        "buffer0/in_accel_x_en": "0", "buffer0/in_accel_x_index": "0",
        "buffer0/in_accel_x_type": "le:s16/16>>0", "buffer0/in_accel_y_en": "0",
        "buffer0/in_accel_y_index": "1", "buffer0/in_accel_y_type": "le:s16/16>>0",
        "buffer0/in_accel_z_en": "0", "buffer0/in_accel_z_index": "2",
        "buffer0/in_accel_z_type": "le:s16/16>>0", "buffer0/in_timestamp_en": "0",
        "buffer0/in_timestamp_index": "3", "buffer0/in_timestamp_type": "le:s64/64>>0",
      ])
    let device = try XCTUnwrap(
      IIOSensorSource.listDevices(sysfsRoot: tree.sysfsRoot, devRoot: tree.devRoot).first)
    XCTAssertTrue(device.supportsBuffer)
    XCTAssertEqual(device.scanElementsDirectory, tree.devicePath(0) + "/buffer0")
    XCTAssertEqual(device.bufferDirectory, tree.devicePath(0) + "/buffer0")
    XCTAssertEqual(device.timestampChannel?.scanIndex, 3)
  }

  /// Unusable attributes are noted rather than fatal: a zero-row matrix falls back to identity, a
  /// format with an unknown sign letter leaves the channel unbuffered (so the device is polled).
  func testUnusableAttributesAreNoted() throws {
    let tree = try IIOFakeTree()
    var elements = Fixtures.mpuScanElements
    elements[0].type = "be:f16/16>>0"
    try tree.addDevice(
      index: 0, name: "mpu6050",
      attributes: [
        "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "0",
        "in_accel_mount_matrix": "1, 0, 0; 0, 1, 0; 0, 0, 0",
      ], scanElements: elements)
    let device = try XCTUnwrap(
      IIOSensorSource.listDevices(sysfsRoot: tree.sysfsRoot, devRoot: tree.devRoot).first)
    XCTAssertEqual(device.mountMatrix(for: .accelerometer), .identity)
    XCTAssertFalse(device.supportsBuffer)
    XCTAssertEqual(device.notes.count, 2, "\(device.notes)")
    XCTAssertTrue(device.description.contains("note: ignored unusable in_accel_mount_matrix"))
  }
}
