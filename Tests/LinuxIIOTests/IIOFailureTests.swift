// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest
import _LinuxIIOTestSupport

@testable import LinuxIIO

final class IIOFailureTests: XCTestCase {
  private let mpuScale = 0.000598

  /// A fake tree holding an mpu6050 (device 0), and the system to read it through, on which a
  /// test sets its faults before it makes its sources.
  private func mpu6050BehindFaults() throws -> (IIOFakeTree, FaultInjectingSystem) {
    (try Fixtures.mpu6050Tree(), FaultInjectingSystem())
  }

  /// EBUSY opening `/dev/iio:device0` (another reader has it): polling instead, with a warning,
  /// and the buffer settings rolled back.
  func testBusyOnOpenFallsBackToPolling() throws {
    let (tree, system) = try mpu6050BehindFaults()
    system.failOpen("/iio:device0", .busy)
    let source = try Fixtures.source(tree, .automatic, system: system)
    let warnings = Locked<[String]>([])
    source.warningHandler = { message in warnings.withLock { $0.append(message) } }
    let (collector, subscription) = Fixtures.collect(source)
    XCTAssertTrue(collector.waitForSamples(2))
    XCTAssertEqual(source.readModes, ["mpu6050": .polled])
    subscription.cancel()

    let message = try XCTUnwrap(warnings.withLock { $0.first })
    XCTAssertTrue(message.contains("busy") && message.contains("polling"), message)
    XCTAssertEqual(source.warnings, warnings.withLock { $0 })
    // Polled values come from the sysfs `_raw` attributes, stamped with the boot clock.
    let sample = collector.samples[0]
    assertClose(sample.accelerometer, SIMD3(-16, 16384, 200) * mpuScale, tolerance: 1e-12)
    XCTAssertEqual(sample.timestamp, BootClock.now, accuracy: 1, "boot-clock stamp")
    XCTAssertEqual(tree.read(0, "buffer/enable"), "0", "rolled back")
    XCTAssertEqual(tree.read(0, "scan_elements/in_accel_x_en"), "0", "rolled back")
    XCTAssertTrue(collector.failures.isEmpty, "a fallback is not a failure")
  }

  /// A buffer already enabled by someone else (iio-sensor-proxy streaming) is left alone.
  func testBufferEnabledByAnotherReaderFallsBackToPolling() throws {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "buffer/enable", "1")
    let source = try Fixtures.source(tree)
    let (collector, subscription) = Fixtures.collect(source)
    XCTAssertTrue(collector.waitForSamples(1))
    XCTAssertEqual(source.readModes["mpu6050"], .polled)
    subscription.cancel()
    XCTAssertTrue(source.warnings.contains { $0.contains("busy") })
    XCTAssertEqual(tree.read(0, "buffer/enable"), "1", "not ours to disable")
    XCTAssertEqual(tree.read(0, "scan_elements/in_accel_x_en"), "0", "not touched")
  }

  /// A buffer another reader streams from keeps the rate that reader chose: neither a buffered-only
  /// start (busy, retried) nor the automatic fallback to polling writes `sampling_frequency`. Both
  /// wrote ours first, on every retry.
  func testBufferEnabledByAnotherReaderKeepsItsRate() throws {
    let (tree, system) = try mpu6050BehindFaults()
    try tree.write(0, "buffer/enable", "1")
    let strict = try Fixtures.source(tree, .buffered, system: system)
    let (strictCollector, strictSubscription) = Fixtures.collect(strict)
    XCTAssertEqual(strictCollector.waitForFailure(.busy, timeout: 10)?.isFatal, false)
    strictSubscription.cancel()

    let automatic = try Fixtures.source(tree, .automatic, system: system)
    let (collector, subscription) = Fixtures.collect(automatic)
    XCTAssertTrue(collector.waitForSamples(1, timeout: 10))
    XCTAssertEqual(automatic.readModes["mpu6050"], .polled)
    subscription.cancel()

    let rateWrites = system.writes.withLock { $0 }.filter { $0.hasSuffix("sampling_frequency") }
    XCTAssertEqual(rateWrites, [], "the other reader's rate was changed")
    XCTAssertEqual(tree.read(0, "sampling_frequency"), "50")
    XCTAssertEqual(tree.read(0, "buffer/enable"), "1", "not ours to disable")
  }

  /// EBUSY when enabling the buffer also falls back; in buffered-only mode it is a `.busy` failure.
  func testBusyOnEnable() throws {
    let (tree, system) = try mpu6050BehindFaults()
    system.failWrite("buffer/enable", .busy)
    let automatic = try Fixtures.source(tree, .automatic, system: system)
    let (collector, subscription) = Fixtures.collect(automatic)
    XCTAssertTrue(collector.waitForSamples(1))
    XCTAssertEqual(automatic.readModes["mpu6050"], .polled)
    subscription.cancel()

    let strict = try Fixtures.source(tree, .buffered, system: system)
    let (strictCollector, strictSubscription) = Fixtures.collect(strict)
    let failure = try XCTUnwrap(strictCollector.waitForFailure(.busy))
    strictSubscription.cancel()
    XCTAssertTrue(failure.message.contains("EBUSY"), failure.message)
    XCTAssertFalse(failure.isFatal, "the device is retried")
    XCTAssertTrue(strictCollector.samples.isEmpty)
  }

  /// EBUSY on sysfs reads (a driver refusing `_raw` while someone else buffers) is reported once
  /// as `.busy`, and polling resumes when the device is free.
  func testBusySysfsReadsAreReportedOnceAndRecover() throws {
    let (tree, system) = try mpu6050BehindFaults()
    let source = try Fixtures.source(tree, .polled, system: system)
    let (collector, subscription) = Fixtures.collect(source, rate: 200)
    defer { subscription.cancel() }
    XCTAssertTrue(collector.waitForSamples(1))
    system.failRead("in_accel_y_raw", .busy)
    XCTAssertEqual(collector.waitForFailure(.busy)?.isFatal, false, "polling goes on")
    let count = collector.samples.count
    // Several poll periods pass while busy (each read fails, nothing is delivered or repeated).
    XCTAssertTrue(eventually { system.readFaultHits.withLock { $0 } >= 3 })
    XCTAssertEqual(collector.samples.count, count, "nothing delivered while busy")
    system.readFaults.withLock { $0.removeAll() }
    XCTAssertTrue(collector.waitForSamples(count + 1))
    XCTAssertEqual(collector.failures.filter { $0.kind == .busy }.count, 1, "reported once")
  }

  /// EIO reading a `_raw` attribute (an I²C hiccup) is an advisory failure and the device is
  /// tried again: polling resumes once the reads work. It used to stop the device for good.
  func testIOErrorReadingAValueIsAdvisoryAndPollingResumes() throws {
    let (tree, system) = try mpu6050BehindFaults()
    let source = try Fixtures.source(tree, .polled, system: system)
    let (collector, subscription) = Fixtures.collect(source, rate: 200)
    defer { subscription.cancel() }
    XCTAssertTrue(collector.waitForSamples(1))
    system.failRead("in_accel_y_raw", .other(EIO))
    let failure = try XCTUnwrap(collector.waitForFailure(.other, timeout: 10))
    XCTAssertFalse(failure.isFatal, "the device is tried again")
    XCTAssertTrue(failure.message.contains("in_accel_y_raw"), failure.message)
    // Several retries fail; they are not each reported.
    XCTAssertTrue(eventually(timeout: 10) { system.readFaultHits.withLock { $0 } >= 3 })
    system.readFaults.withLock { $0.removeAll() }
    let count = collector.samples.count
    XCTAssertTrue(collector.waitForSamples(count + 1, timeout: 10))
    let hits = system.readFaultHits.withLock { $0 }
    XCTAssertLessThan(collector.failures.count, hits, "counted, not reported per failure")
  }

  /// EACCES on the node in buffered-only mode: a `.permissionDenied` failure naming the fix.
  func testPermissionDeniedNamesTheUdevRule() throws {
    let (tree, system) = try mpu6050BehindFaults()
    system.failOpen("/iio:device0", .permissionDenied)
    let source = try Fixtures.source(tree, .buffered, system: system)
    let (collector, subscription) = Fixtures.collect(source)
    let failure = try XCTUnwrap(collector.waitForFailure(.permissionDenied))
    subscription.cancel()
    XCTAssertTrue(failure.message.contains(tree.nodePath(0)), failure.message)
    XCTAssertTrue(failure.message.contains("udev rule"), failure.message)
    XCTAssertTrue(failure.message.contains("docs/RealSensors.md"), failure.message)
    XCTAssertTrue(collector.samples.isEmpty)
  }

  /// A subscriber arriving after a refused permission (same rate and sensors as the first) hears
  /// the failure too; it heard nothing, as nothing retried the device. Once the permission is
  /// fixed, the next subscriber reads.
  func testLateSubscriberAfterPermissionDeniedHearsTheFailureOrReads() throws {
    let (tree, system) = try mpu6050BehindFaults()
    system.failOpen("/iio:device0", .permissionDenied)
    let source = try Fixtures.source(tree, .buffered, system: system)
    let (first, firstSubscription) = Fixtures.collect(source)
    defer { firstSubscription.cancel() }
    XCTAssertNotNil(first.waitForFailure(.permissionDenied))

    let (second, secondSubscription) = Fixtures.collect(source)
    defer { secondSubscription.cancel() }
    let failure = try XCTUnwrap(second.waitForFailure(.permissionDenied, timeout: 10))
    XCTAssertTrue(failure.message.contains("udev rule"), failure.message)

    system.openFaults.withLock { $0.removeAll() }
    let (third, thirdSubscription) = Fixtures.collect(source)
    defer { thirdSubscription.cancel() }
    let writer = try IIOFIFOWriter(path: tree.nodePath(0), timeout: 10)
    writer.write(Fixtures.mpuLayout().pack(["in_accel_z": 1, "in_timestamp": 1_000_000_000]))
    XCTAssertTrue(third.waitForSamples(1, timeout: 10))
    XCTAssertEqual(source.readModes["mpu6050"], .buffered)
  }

  /// No write access to the buffer attributes (an unprivileged user): automatic mode polls and
  /// says how to get buffered reading.
  func testUnwritableBufferAttributesPollWithUdevHint() throws {
    let (tree, system) = try mpu6050BehindFaults()
    system.failWrite("_en", .permissionDenied)
    system.failWrite("sampling_frequency", .permissionDenied)
    let source = try Fixtures.source(tree, .automatic, system: system)
    let (collector, subscription) = Fixtures.collect(source)
    XCTAssertTrue(collector.waitForSamples(1))
    XCTAssertEqual(source.readModes["mpu6050"], .polled)
    subscription.cancel()
    XCTAssertTrue(source.warnings.contains { $0.contains("udev rule") }, "\(source.warnings)")
    XCTAssertTrue(source.warnings.contains { $0.contains("stays at 50 Hz") }, "\(source.warnings)")
    // Unreadable sysfs values are a permission failure too.
    system.failRead("in_accel_x_raw", .permissionDenied)
    let polled = try Fixtures.source(tree, .polled, system: system)
    let (polledCollector, polledSubscription) = Fixtures.collect(polled)
    XCTAssertNotNil(polledCollector.waitForFailure(.permissionDenied))
    polledSubscription.cancel()
  }

  /// A buffered device disappears mid-stream: subscribers get `.disconnected`; it comes back at
  /// another index, is found again by name, and samples resume.
  func testBufferedDeviceDisappearsAndComesBack() throws {
    let tree = try IIOFakeTree()
    try Fixtures.mpu6050(tree, index: 0)
    let source = try Fixtures.source(tree, .buffered)
    let (collector, subscription) = Fixtures.collect(source)
    defer { subscription.cancel() }
    let layout = Fixtures.mpuLayout()
    let writer = try IIOFIFOWriter(path: tree.nodePath(0))
    writer.write(layout.pack(["in_accel_z": 1, "in_timestamp": 1_000_000_000]))
    XCTAssertTrue(collector.waitForSamples(1))

    tree.removeDevice(0)
    writer.close()
    let failure = try XCTUnwrap(collector.waitForFailure(.disconnected))
    XCTAssertTrue(failure.message.contains("mpu6050"), failure.message)
    // Advisory: reading resumes when the device reappears, so a session must not end here.
    XCTAssertFalse(failure.isFatal)

    try Fixtures.mpu6050(tree, index: 4)
    let newWriter = try IIOFIFOWriter(path: tree.nodePath(4))
    newWriter.write(layout.pack(["in_accel_z": 2, "in_timestamp": 2_000_000_000]))
    XCTAssertTrue(collector.waitForSamples(2))
    XCTAssertEqual(collector.samples.last?.timestamp, 2)
    XCTAssertEqual(collector.samples.last?.accelerometer?.z ?? 0, 2 * mpuScale, accuracy: 1e-12)
    XCTAssertEqual(tree.read(4, "buffer/enable"), "1")
    XCTAssertTrue(
      source.warnings.contains { $0.contains("back (iio:device4)") }, "\(source.warnings)")
  }

  /// A polled device disappears and comes back the same way.
  func testPolledDeviceDisappearsAndComesBack() throws {
    let tree = try IIOFakeTree()
    try Fixtures.bmp280(tree, index: 1)
    let source = try Fixtures.source(tree, .polled)
    XCTAssertEqual(source.availableSensors, [.barometer, .thermometer])
    let (collector, subscription) = Fixtures.collect(source)
    defer { subscription.cancel() }
    XCTAssertTrue(collector.waitForSamples(1))
    let sample = collector.samples[0]
    XCTAssertEqual(sample.pressure!, 101.325, accuracy: 1e-12)
    XCTAssertEqual(sample.temperature!, 21.54, accuracy: 1e-12)

    tree.removeDevice(1)
    XCTAssertEqual(collector.waitForFailure(.disconnected)?.isFatal, false)
    let before = collector.samples.count
    // A bme680 before Linux 6.10 reported hPa; the magnitude gives it away.
    try tree.addDevice(
      index: 0, name: "bmp280",
      attributes: ["in_pressure_input": "1013.25", "in_temp_input": "20000"])
    XCTAssertTrue(collector.waitForSamples(before + 1))
    XCTAssertEqual(collector.samples.last!.pressure!, 101.325, accuracy: 1e-9)
  }

  /// Polled mounting and sign: the mount matrix, a sign override, calibbias never re-added.
  func testPolledMountMatrixSignOverrideAndCalibbias() throws {
    let tree = try IIOFakeTree()
    try Fixtures.mpu6050(tree, mountMatrix: "0, -1, 0; 1, 0, 0; 0, 0, 1")
    var configuration = Fixtures.configuration(.polled)
    try configuration.apply(signList: "mpu6050:-1")
    let source = try Fixtures.source(tree, configuration: configuration)
    let (collector, subscription) = Fixtures.collect(source, rate: 20)
    XCTAssertTrue(collector.waitForSamples(1))
    XCTAssertEqual(tree.read(0, "sampling_frequency"), "20")
    // A second subscriber asking for more raises the device rate (slowest offered ≥ 150 Hz).
    let faster = source.subscribe(requestedSampleRate: 150, { _ in })
    XCTAssertTrue(eventually { tree.read(0, "sampling_frequency") == "200" })
    faster.cancel()
    subscription.cancel()

    let v = SIMD3<Double>(-16, 16384, 200) * mpuScale  // calibbias (1234) is the chip's business
    let rotated = SIMD3(-v.y, v.x, v.z)
    assertClose(collector.samples[0].accelerometer, -rotated, tolerance: 1e-12)
    let g = SIMD3<Double>(10, -20, 30) * 0.001064724
    assertClose(
      collector.samples[0].gyroscope, SIMD3(-g.y, g.x, g.z), tolerance: 1e-12, "no sign on gyro")
  }
}
