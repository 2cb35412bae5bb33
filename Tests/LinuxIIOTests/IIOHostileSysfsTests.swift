// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest
import _LinuxIIOTestSupport

@testable import LinuxIIO

/// Sysfs trees no kernel makes (`COREMOTION_IIO_ROOT` may name any folder): each ends in a clear
/// error, never a trap, a hang or unbounded memory (docs/Robustness.md, "Files that are not
/// regular" and "IIO").
final class IIOHostileSysfsTests: XCTestCase {
  // MARK: Record sizes

  /// The kernel keeps a scan element's repeat in a byte (`u8 repeat`), so a larger one is not a
  /// format: `le:s64/64X999999` used to size the read buffer at 512 MB.
  func testScanTypeRepeatIsAtMostTheKernelsByte() {
    XCTAssertEqual(IIOScanType(parsing: "le:s16/16X255>>0")?.repeatCount, 255)
    for text in ["le:s16/16X256>>0", "le:s64/64X999999>>0", "le:s16/16X0>>0"] {
      XCTAssertNil(IIOScanType(parsing: text), "accepted \"\(text)\"")
    }
    XCTAssertNil(
      IIOScanType(
        endianness: .little, isSigned: true, realBits: 16, storageBits: 16, repeatCount: 256))
  }

  /// A format that changed to an impossible one after discovery fails the buffer with a message
  /// naming the device, the attribute and what it held.
  func testImpossibleRepeatFailsTheBufferNamingTheAttribute() throws {
    let tree = try IIOFakeTree()
    try Fixtures.mpu6050(tree)
    let source = try Fixtures.source(tree, .buffered)
    try tree.write(0, "scan_elements/in_accel_y_type", "le:s64/64X999999>>0")
    let collector = EventCollector()
    let subscription = source.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let failure = try XCTUnwrap(collector.waitForFailure(.other))
    for part in ["mpu6050", "scan_elements/in_accel_y_type", "X999999", "at most 255"] {
      XCTAssertTrue(failure.message.contains(part), "\(part): \(failure.message)")
    }
    XCTAssertTrue(collector.samples.isEmpty)
  }

  /// Repeats within the byte can still add up to records no device has (three `X255` axes make
  /// 8160 bytes): refused above ``IIODeviceReader/maximumRecordSize``, naming the largest element.
  func testOversizedRecordIsRefusedNamingTheDeviceAndAttribute() throws {
    let tree = try IIOFakeTree()
    try Fixtures.mpu6050(tree)
    for axis in ["x", "y", "z"] {
      try tree.write(0, "scan_elements/in_accel_\(axis)_type", "le:s64/64X255>>0")
    }
    let source = try Fixtures.source(tree, .buffered)
    let collector = EventCollector()
    let subscription = source.subscribe(requestedSampleRate: 100, collector.handler)
    defer { subscription.cancel() }
    let failure = try XCTUnwrap(collector.waitForFailure(.other))
    for part in ["mpu6050", "scan_elements/in_accel_x_type", "le:s64/64X255>>0", "4096"] {
      XCTAssertTrue(failure.message.contains(part), "\(part): \(failure.message)")
    }
  }
}
