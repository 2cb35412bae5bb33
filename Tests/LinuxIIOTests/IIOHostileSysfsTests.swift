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

  // MARK: Buffered reads

  /// Replaces device `index`'s node with a link to `/dev/zero`: a descriptor that never runs dry,
  /// as a device faster than its reader would be (each zero record decodes to zeros at time 0).
  private func linkNodeToDevZero(_ tree: IIOFakeTree, _ index: Int = 0) {
    unlink(tree.nodePath(index))
    XCTAssertEqual(symlink("/dev/zero", tree.nodePath(index)), 0, "symlink errno \(errno)")
  }

  /// One `readBuffered()` makes at most ``IIODeviceReader/maximumReadsPerRound`` full reads and
  /// returns what they held; the next call reads on. It used to read until a short read, which
  /// such a descriptor never gives: nothing was delivered and the samples grew without bound.
  func testBufferedReadOfANodeThatNeverRunsDryIsBoundedPerRound() throws {
    let tree = try IIOFakeTree()
    try Fixtures.mpu6050(tree)
    linkNodeToDevZero(tree)
    // The safety net stops an unbounded round after 1000 reads, so the test fails instead.
    let system = CountingReadsSystem(limit: 1000)
    let discovery = IIODiscovery(sysfsRoot: tree.sysfsRoot, devRoot: tree.devRoot, system: system)
    let device = try XCTUnwrap(try discovery.devices().first)
    let reader = IIODeviceReader(
      device: device, kinds: [.accelerometer], configuration: Fixtures.configuration(.buffered),
      system: system)
    try reader.start(rate: 100, preference: .buffered)
    defer { reader.stop() }
    XCTAssertEqual(reader.mode, .buffered)
    for round in 1...3 {
      guard case .samples(let samples, let endOfFile) = reader.readBuffered() else {
        return XCTFail("round \(round): the read failed")
      }
      let reads = system.reads.withLock { count in
        defer { count = 0 }
        return count
      }
      XCTAssertEqual(reads, IIODeviceReader.maximumReadsPerRound, "round \(round)")
      XCTAssertEqual(samples.count, reads * 64, "64 records a read, round \(round)")
      XCTAssertFalse(endOfFile)
    }
  }

  /// The same node behind a source: samples are delivered while it streams, and cancelling stops
  /// the reader thread with the buffer disabled (it used to stay in its first round for ever).
  func testSourceOnANodeThatNeverRunsDryDeliversAndStops() throws {
    let tree = try IIOFakeTree()
    try Fixtures.mpu6050(tree)
    linkNodeToDevZero(tree)
    let source = try Fixtures.source(tree, .buffered)
    let collector = EventCollector()
    let subscription = source.subscribe(requestedSampleRate: 100, collector.handler)
    XCTAssertTrue(collector.waitForSamples(1))
    subscription.cancel()
    XCTAssertTrue(IIOSensorSource.waitForReadersToStop(timeout: 5))
    XCTAssertEqual(tree.read(0, "buffer/enable"), "0")
  }
}

/// An ``IIOSystem`` that counts device reads and, past `limit` of them, reports no data: a round
/// that would read for ever ends there, so a test can fail instead of exhausting memory.
final class CountingReadsSystem: IIOSystem, @unchecked Sendable {
  let reads = Locked(0)
  let limit: Int

  init(limit: Int) {
    self.limit = limit
    super.init()
  }

  override func readDevice(
    _ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int
  ) -> Result<Int, IIOSystemError> {
    let calls = reads.withLock { count -> Int in
      count += 1
      return count
    }
    if calls > limit { return .failure(.wouldBlock) }
    return super.readDevice(fd, into: buffer, count: count)
  }
}
