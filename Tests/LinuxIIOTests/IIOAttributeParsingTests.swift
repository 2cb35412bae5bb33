// SPDX-License-Identifier: Apache-2.0

import XCTest
import _LinuxIIOTestSupport

@testable import LinuxIIO

final class IIOAttributeParsingTests: XCTestCase {
  func testMountMatrixIsRowMajorAndAppliedAsMTimesV() throws {
    // The PinePhone's matrix: the first ";" group is the row producing the corrected x.
    let m = try XCTUnwrap(IIOMountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, -1\n"))
    XCTAssertEqual(m.rows, [SIMD3(0, 1, 0), SIMD3(-1, 0, 0), SIMD3(0, 0, -1)])
    XCTAssertEqual(m.apply(SIMD3(1, 2, 3)), SIMD3(2, -1, -3))
    // A non-symmetric matrix distinguishes M·v from vᵀ·M (which would give (1, 2, 0)).
    let shear = try XCTUnwrap(IIOMountMatrix(parsing: "1, 1, 0; 0, 1, 0; 0, 0, 1"))
    XCTAssertEqual(shear.apply(SIMD3(1, 1, 0)), SIMD3(2, 1, 0))
    // Non-integer entries (device-tree examples use cosines).
    let tilted = try XCTUnwrap(IIOMountMatrix(parsing: "0.866, -0.5, 0; 0.5, 0.866, 0; 0, 0, 1"))
    XCTAssertEqual(tilted.rows[1].x, 0.5)
    XCTAssertEqual(IIOMountMatrix(parsing: ""), .identity)
    XCTAssertEqual(m.description, "0, 1, 0; -1, 0, 0; 0, 0, -1")
  }

  func testMountMatrixRejectsZeroRowsAndGarbage() {
    XCTAssertNil(IIOMountMatrix(parsing: "1, 0, 0; 0, 1, 0; 0, 0, 0"))
    XCTAssertNil(IIOMountMatrix(parsing: "1, 0, 0; 0, 1, 0"))
    XCTAssertNil(IIOMountMatrix(parsing: "1, 0; 0, 1, 0; 0, 0, 1"))
    XCTAssertNil(IIOMountMatrix(parsing: "a, 0, 0; 0, 1, 0; 0, 0, 1"))
  }

  /// The ABI calls the mount matrix a rotation matrix: an entry above 1 in magnitude is none, and
  /// `1e308` scaled every reading of its axis to infinity or near it.
  func testMountMatrixRejectsEntriesAboveOne() {
    XCTAssertNil(IIOMountMatrix(parsing: "1e308, 0, 0; 0, 1, 0; 0, 0, 1"))
    XCTAssertNil(IIOMountMatrix(parsing: "1, 0, 0; 0, -2, 0; 0, 0, 1"))
    XCTAssertNil(IIOMountMatrix(parsing: "1, 0, 0; 0, 1, 0; 0, 0, 1.0001"))
    XCTAssertNotNil(IIOMountMatrix(parsing: "-1, 0, 0; 0, 1, 0; 0, 0, -1"))
  }

  /// A rate list holding anything that is not a rate is malformed as a whole; its numbers used to
  /// be kept and the rest dropped without a word.
  func testFrequencySetWithAWordOrANegativeRateIsMalformed() {
    XCTAssertNil(IIOFrequencySet(parsing: "10 20 abc 50"))
    XCTAssertNil(IIOFrequencySet(parsing: "10 -20 50"))
    XCTAssertNil(IIOFrequencySet(parsing: "10 inf"))
    XCTAssertNil(IIOFrequencySet(parsing: "[1 x 2 1000]"))
    // A range starting below 0 Hz is no more a list of rates than "-20" is; its grid put the
    // rate chosen off the rates it offered ([-100 60 200] chose 80 Hz for 10, where 20 was).
    XCTAssertNil(IIOFrequencySet(parsing: "[-100 60 200]"))
    XCTAssertNil(IIOFrequencySet(parsing: "[-1e308 1 1e308]"))
    XCTAssertEqual(IIOFrequencySet(parsing: "[-0 60 200]")?.bestRate(for: 10), 60)
    XCTAssertEqual(IIOFrequencySet(parsing: "50 10\t20\n"), .discrete([10, 20, 50]))
  }

  func testFrequencySetChoosesSlowestSufficientRate() throws {
    let mpu = try XCTUnwrap(IIOFrequencySet(parsing: "10 20 50 100 200 500\n"))
    XCTAssertEqual(mpu.bestRate(for: 60), 100)
    XCTAssertEqual(mpu.bestRate(for: 100), 100)
    XCTAssertEqual(mpu.bestRate(for: 1), 10)
    XCTAssertEqual(mpu.bestRate(for: 5000), 500)
    XCTAssertEqual(mpu.bounds, 10...500)

    let bmi = try XCTUnwrap(IIOFrequencySet(parsing: "0.78125 1.5625 3.125 6.25 12.5 25 50 100"))
    XCTAssertEqual(bmi.bestRate(for: 2), 3.125)
    // 0 Hz is never chosen (some drivers list it and then produce nothing).
    XCTAssertEqual(IIOFrequencySet(parsing: "0 2 4 6 8")?.bestRate(for: 0), 2)

    let range = try XCTUnwrap(IIOFrequencySet(parsing: "[4 2 1000]"))
    XCTAssertEqual(range, .range(minimum: 4, step: 2, maximum: 1000))
    XCTAssertEqual(range.bestRate(for: 99), 100)
    XCTAssertEqual(range.bestRate(for: 1), 4)
    XCTAssertEqual(range.bestRate(for: 2000), 1000)
    XCTAssertNil(IIOFrequencySet(parsing: "none"))
    // A range offering nothing but 0 Hz has no usable rate (it chose 0 Hz).
    let zero = try XCTUnwrap(IIOFrequencySet(parsing: "[0 0 0]"))
    XCTAssertNil(zero.bounds)
    XCTAssertNil(zero.bestRate(for: 100))
    XCTAssertEqual(IIOFrequencySet(parsing: "[0 0 0.5]")?.bestRate(for: 100), 0.5)
  }

  /// A step too fine to count to the rate asked for in a `Double` (subnormal, or more steps than
  /// a `Double` counts exactly) offers that rate; the count overflowed and chose the top.
  func testFrequencyRangeWithAStepTooFineToCountOffersTheRateAskedFor() throws {
    for text in ["[10 5e-324 200]", "[10 1e-310 200]", "[0 5e-324 200]", "[10 1e-15 200]"] {
      let range = try XCTUnwrap(IIOFrequencySet(parsing: text), text)
      XCTAssertEqual(range.bestRate(for: 50), 50, text)
      XCTAssertEqual(range.bestRate(for: 1), text.hasPrefix("[0") ? 1 : 10, text)
      XCTAssertEqual(range.bestRate(for: 1e308), 200, text)
      XCTAssertEqual(range.bestRate(for: .infinity), 200, text)
    }
  }

  /// A list and a range agree on requests that are not ordinary rates: NaN gave the fastest rate
  /// of a list and NaN (no rate) from a range; it now gets the slowest, as 0 Hz does.
  func testFrequencySetsAgreeOnNaNInfiniteAndNegativeRequests() throws {
    let list = try XCTUnwrap(IIOFrequencySet(parsing: "0 12.5 25 50 100 200"))
    for text in ["[12.5 12.5 200]", "[0 12.5 200]", "[12.5 0 200]"] {
      let range = try XCTUnwrap(IIOFrequencySet(parsing: text), text)
      for request in [Double.nan, -.nan, 0, -1, -1e308, -.infinity, .infinity, 1e308] {
        let slowest = request.isNaN || request <= 0
        XCTAssertEqual(list.bestRate(for: request), slowest ? 12.5 : 200, "list, \(request)")
        XCTAssertEqual(range.bestRate(for: request), slowest ? 12.5 : 200, "\(text), \(request)")
      }
    }
  }

  func testValueAttributeNames() {
    XCTAssertEqual(IIODiscovery.parseValueAttribute("in_accel_x_raw")?.axis, 0)
    XCTAssertEqual(IIODiscovery.parseValueAttribute("in_anglvel_z_raw")?.kind, .gyroscope)
    XCTAssertEqual(IIODiscovery.parseValueAttribute("in_pressure0_input")?.typeStem, "in_pressure0")
    XCTAssertEqual(IIODiscovery.parseValueAttribute("in_temp_raw")?.kind, .temperature)
    for ignored in [
      "in_accel_linear_x_raw", "in_gravity_x_raw", "in_temp_x_raw", "in_accel_raw",
      "in_voltage0_raw", "in_accel_x_calibbias", "in_accel_scale", "in_rot_quaternion_raw",
    ] {
      XCTAssertNil(IIODiscovery.parseValueAttribute(ignored), ignored)
    }
  }

  func testConfigurationSignPrecedence() throws {
    let mpu = IIODeviceInfo(
      name: "mpu6050", directoryName: "iio:device0", sysfsPath: "", devicePath: "")
    let hid = IIODeviceInfo(
      name: "accel_3d", label: "accel-display", directoryName: "iio:device1", sysfsPath: "",
      devicePath: "")
    var configuration = IIOConfiguration()
    XCTAssertEqual(configuration.accelerometerSign(for: mpu), 1)
    XCTAssertEqual(configuration.accelerometerSign(for: hid), -1, "HID hubs report gravity")

    try configuration.apply(
      fileContents: """
        # comment
        [*]
        accel_sign = -1
        [accel-display]
        accel_sign = +1
        mount_matrix = 0, 1, 0; 1, 0, 0; 0, 0, -1
        [mpu6050]
        anglvel_mount_matrix = -1, 0, 0; 0, -1, 0; 0, 0, 1
        """)
    XCTAssertEqual(configuration.accelerometerSign(for: mpu), -1, "[*] applies without an entry")
    XCTAssertEqual(configuration.accelerometerSign(for: hid), 1, "label entry wins")
    XCTAssertEqual(
      configuration.mountMatrix(for: .magnetometer, on: hid).rows[2], SIMD3(0, 0, -1))
    XCTAssertEqual(configuration.mountMatrix(for: .gyroscope, on: mpu).rows[0], SIMD3(-1, 0, 0))
    XCTAssertEqual(configuration.mountMatrix(for: .accelerometer, on: mpu), .identity)

    try configuration.apply(signList: "mpu6050:+1")
    XCTAssertEqual(configuration.accelerometerSign(for: mpu), 1)
    try configuration.apply(signList: "-1")
    XCTAssertEqual(configuration.accelerometerSign(for: hid), -1, "a bare value overrides all")

    XCTAssertThrowsError(try configuration.apply(signList: "mpu6050:2"))
    XCTAssertThrowsError(try configuration.apply(fileContents: "[x]\naccel_sign = 0"))
    XCTAssertThrowsError(try configuration.apply(fileContents: "accel_sign = 1"))
    XCTAssertThrowsError(
      try configuration.apply(fileContents: "[x]\nmount_matrix = 0,0,0;0,1,0;0,0,1"))
  }

  func testConfigurationFromEnvironment() throws {
    let tree = try IIOFakeTree()
    let file = tree.base + "/iio.conf"
    try "[bmi160]\naccel_sign = -1\n".write(toFile: file, atomically: false, encoding: .utf8)
    let configuration = try IIOConfiguration.fromEnvironment([
      "COREMOTION_IIO_CONFIG": file, "COREMOTION_IIO_MODE": "polled",
      "COREMOTION_IIO_ACCEL_SIGN": "mxc4005:-1",
    ])
    XCTAssertEqual(configuration.mode, .polled)
    XCTAssertEqual(configuration.accelerometerSigns, ["bmi160": -1, "mxc4005": -1])
    XCTAssertThrowsError(try IIOConfiguration.fromEnvironment(["COREMOTION_IIO_MODE": "fast"]))
    XCTAssertThrowsError(
      try IIOConfiguration.fromEnvironment(["COREMOTION_IIO_CONFIG": tree.base + "/missing"]))
  }

  func testPermissionErrorNamesTheUdevRule() {
    let error = IIOError.permissionDenied(path: "/dev/iio:device0")
    XCTAssertTrue(error.description.contains("/dev/iio:device0"))
    XCTAssertTrue(error.description.contains("udev rule"))
    XCTAssertTrue(error.description.contains("docs/RealSensors.md"))
    XCTAssertEqual(error.sourceFailure.kind, .permissionDenied)
  }
}
