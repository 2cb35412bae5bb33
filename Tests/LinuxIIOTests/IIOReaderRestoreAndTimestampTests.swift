// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest
import _LinuxIIOTestSupport

@testable import LinuxIIO

/// An ``IIOSystem`` whose boot clock reads what the test sets, so arrival times are exact.
final class FixedBootClockSystem: IIOSystem, @unchecked Sendable {
  let now = Locked(1000.0)

  override func bootTime() -> Double { now.withLock { $0 } }
}

/// Two findings of a review of the IIO reader: a stop left the sampling frequency (and the
/// buffer's length and watermark) as the reader had set them, although the shutdown documentation
/// says rates are restored; and without a timestamp channel every record of one read got the same
/// arrival time.
final class IIOReaderRestoreAndTimestampTests: XCTestCase {
  /// An mpu6050 at 50 Hz read at 100 Hz, buffered and polled: after the subscription is cancelled
  /// and the reader has stopped, `sampling_frequency` reads 50 again and the buffer's length and
  /// watermark their earlier 2 and 1 (before, they stayed at 100, 128 and 1).
  func testStopRestoresTheSamplingFrequencyAndBufferSizes() throws {
    for mode in [IIOConfiguration.Mode.buffered, .polled] {
      let tree = try Fixtures.mpu6050Tree()
      XCTAssertEqual(tree.read(0, "sampling_frequency"), "50")
      let source = try Fixtures.source(tree, mode)
      let (events, subscription) = Fixtures.collect(source)
      var writer: IIOFIFOWriter?
      if mode == .buffered {
        writer = try IIOFIFOWriter(path: tree.nodePath(0))
        writer?.write(Fixtures.mpuLayout().pack(["in_accel_z": 1, "in_timestamp": 1]))
      }
      XCTAssertTrue(events.waitForSamples(1), "\(mode)")
      XCTAssertEqual(tree.read(0, "sampling_frequency"), "100", "\(mode): set while reading")
      if mode == .buffered {
        XCTAssertEqual(tree.read(0, "buffer/length"), "128")
      }
      subscription.cancel()
      XCTAssertTrue(IIOSensorSource.waitForReadersToStop(timeout: 5))
      writer?.close()
      XCTAssertEqual(tree.read(0, "sampling_frequency"), "50", "\(mode): restored at stop")
      XCTAssertEqual(tree.read(0, "buffer/length"), "2", "\(mode)")
      XCTAssertEqual(tree.read(0, "buffer/watermark"), "1", "\(mode)")
      XCTAssertEqual(tree.read(0, "buffer/enable"), "0", "\(mode)")
    }
  }

  /// A reader whose device has no timestamp channel, started at 100 Hz with the boot clock at
  /// 1000 s, and a FIFO holding `records` records (all read by one `readBuffered`).
  private func readUnstamped(
    _ tree: IIOFakeTree, system: FixedBootClockSystem, reader: IIODeviceReader, records: Int
  ) throws -> [MotionSample] {
    let layout = IIOScanLayout(
      ["x", "y", "z"].enumerated().map {
        .init(name: "in_accel_\($1)", index: $0, type: IIOScanType(parsing: "le:s16/16")!)
      })
    let writer = try IIOFIFOWriter(path: tree.nodePath(0))
    for n in 0..<records { writer.write(layout.pack(["in_accel_z": Int64(n)])) }
    guard case .samples(let samples, _) = reader.readBuffered() else {
      XCTFail("the read failed")
      return []
    }
    return samples
  }

  /// Five records read at once, the clock at 1000 s and the device at 100 Hz: stamped 999.96,
  /// 999.97, …, 1000 (the last arriving now, each earlier one a period before), not all 1000. A
  /// second read 0.02 s later holding five more (a backlog longer than the time since the first)
  /// shares those 0.02 s, so the stamps still strictly increase.
  func testRecordsWithoutATimestampChannelAreSpreadBackFromTheirArrival() throws {
    let tree = try IIOFakeTree()
    try tree.addDevice(
      index: 0, name: "adxl345",
      attributes: [
        "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "256",
        "in_accel_scale": "0.038300", "sampling_frequency": "50",
        "sampling_frequency_available": "12.5 25 50 100 200 400",
      ],
      scanElements: ["x", "y", "z"].enumerated().map {
        .init(name: "in_accel_\($1)", index: $0, type: "le:s16/16")
      })
    let system = FixedBootClockSystem()
    let discovery = IIODiscovery(sysfsRoot: tree.sysfsRoot, devRoot: tree.devRoot, system: system)
    let device = try XCTUnwrap(try discovery.devices().first)
    XCTAssertNil(device.timestampChannel)
    XCTAssertTrue(device.supportsBuffer)
    let reader = IIODeviceReader(
      device: device, kinds: [.accelerometer], configuration: Fixtures.configuration(.buffered),
      system: system)
    try reader.start(rate: 100, preference: .buffered)
    defer { reader.stop() }
    XCTAssertEqual(reader.recordPeriod, 0.01, accuracy: 1e-12)

    let first = try readUnstamped(tree, system: system, reader: reader, records: 5)
    XCTAssertEqual(first.count, 5)
    for (index, sample) in first.enumerated() {
      XCTAssertEqual(sample.timestamp, 999.96 + Double(index) * 0.01, accuracy: 1e-9)
    }

    system.now.withLock { $0 = 1000.02 }
    let second = try readUnstamped(tree, system: system, reader: reader, records: 5)
    XCTAssertEqual(second.count, 5)
    XCTAssertEqual(second.last?.timestamp ?? 0, 1000.02, accuracy: 1e-9)
    let all = (first + second).map(\.timestamp)
    for (earlier, later) in zip(all, all.dropFirst()) {
      XCTAssertGreaterThan(later, earlier, "\(all)")
    }
  }
}
