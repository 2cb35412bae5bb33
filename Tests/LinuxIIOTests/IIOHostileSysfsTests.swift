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
    let tree = try Fixtures.mpu6050Tree()
    let source = try Fixtures.source(tree, .buffered)
    try tree.write(0, "scan_elements/in_accel_y_type", "le:s64/64X999999>>0")
    let (collector, subscription) = Fixtures.collect(source)
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
    let tree = try Fixtures.mpu6050Tree()
    for axis in ["x", "y", "z"] {
      try tree.write(0, "scan_elements/in_accel_\(axis)_type", "le:s64/64X255>>0")
    }
    let (collector, subscription) = try Fixtures.collect(Fixtures.source(tree, .buffered))
    defer { subscription.cancel() }
    let failure = try XCTUnwrap(collector.waitForFailure(.other))
    for part in ["mpu6050", "scan_elements/in_accel_x_type", "le:s64/64X255>>0", "4096"] {
      XCTAssertTrue(failure.message.contains(part), "\(part): \(failure.message)")
    }
  }

  // MARK: Rates

  /// `sampling_frequency_available` offering only 0 Hz (`[0 0 0]`): the device keeps its rate. It
  /// was set to 0 Hz, at which drivers produce nothing.
  func testZeroOnlyRateRangeKeepsTheDevicesRate() throws {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "sampling_frequency_available", "[0 0 0]")
    let (collector, subscription) = try Fixtures.collect(Fixtures.source(tree, .polled))
    defer { subscription.cancel() }
    XCTAssertTrue(collector.waitForSamples(1, timeout: 10))
    XCTAssertEqual(tree.read(0, "sampling_frequency"), "50")
  }

  /// `sampling_frequency_available` offering an absurd rate (`10 1e308`): a subscriber that asks
  /// for the fastest rate (the dashboard, `CMBatchedSensorManager`) had the device set to it, and
  /// the polled reader then read sysfs without pause (19 300 samples in a second to every
  /// subscriber). It polls no faster than ``IIODeviceReader/maximumPollRate``.
  func testAnAbsurdOfferedRateDoesNotMakeThePolledReaderSpin() throws {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "sampling_frequency_available", "10 1e308")
    let system = IIOSystem()
    let reader = try accelerometerReader(tree, mode: .polled, system: system)
    try reader.start(rate: 1e308, preference: .polled)
    defer { reader.stop() }
    XCTAssertEqual(reader.mode, .polled)
    // The fake tree takes the rate written, as a broken driver could.
    XCTAssertEqual(reader.deviceRate, 1e308)
    XCTAssertEqual(reader.pollInterval, 1 / IIODeviceReader.maximumPollRate)
  }

  /// A rate range whose step is subnormal (`[10 5e-324 200]`): counting steps up to the rate
  /// asked for overflowed to infinity, and the device was set to the top of the range (200 Hz
  /// for 50). A grid that fine offers the rate asked for.
  func testASubnormalRateStepPicksTheRateAskedFor() throws {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "sampling_frequency", "10")
    try tree.write(0, "sampling_frequency_available", "[10 5e-324 200]")
    let system = IIOSystem()
    let reader = try accelerometerReader(tree, mode: .polled, system: system)
    try reader.start(rate: 50, preference: .polled)
    defer { reader.stop() }
    XCTAssertEqual(tree.read(0, "sampling_frequency"), "50")
    XCTAssertEqual(reader.deviceRate, 50)
  }

  /// A `sampling_frequency` holding `inf` that cannot be written: the device's rate is unknown,
  /// not infinite. Discovery kept the infinite rate, the reader fell back on it when its own read
  /// refused it, and so took the device for one at 1 MHz (records stamped 1 µs apart when the
  /// buffer has no timestamp) and said the rate "stays at inf Hz".
  func testAnInfiniteCurrentRateThatCannotBeWrittenIsNotTheDevicesRate() throws {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "sampling_frequency", "inf")
    let system = FaultInjectingSystem()
    system.failWrite("/sampling_frequency", .permissionDenied)
    let reader = try accelerometerReader(tree, mode: .polled, system: system)
    try reader.start(rate: 50, preference: .polled)
    defer { reader.stop() }
    XCTAssertNil(reader.deviceRate)
    XCTAssertEqual(reader.recordPeriod, 1.0 / 50, accuracy: 1e-12)
    let warning = try XCTUnwrap(reader.warnings.first { $0.contains("sampling_frequency") })
    XCTAssertFalse(warning.contains("inf"), warning)
  }

  /// A reader of the accelerometer of `tree`'s first device, discovered through `system`, with
  /// the fixtures' configuration for `mode`.
  private func accelerometerReader(
    _ tree: IIOFakeTree, mode: IIOConfiguration.Mode, system: IIOSystem
  ) throws -> IIODeviceReader {
    let discovery = IIODiscovery(sysfsRoot: tree.sysfsRoot, devRoot: tree.devRoot, system: system)
    let device = try XCTUnwrap(try discovery.devices().first)
    return IIODeviceReader(
      device: device, kinds: [.accelerometer], configuration: Fixtures.configuration(mode),
      system: system)
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
    let tree = try Fixtures.mpu6050Tree()
    linkNodeToDevZero(tree)
    // The safety net stops an unbounded round after 1000 reads, so the test fails instead.
    let system = CountingReadsSystem(limit: 1000)
    let reader = try accelerometerReader(tree, mode: .buffered, system: system)
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
    let tree = try Fixtures.mpu6050Tree()
    linkNodeToDevZero(tree)
    let (collector, subscription) = try Fixtures.collect(Fixtures.source(tree, .buffered))
    XCTAssertTrue(collector.waitForSamples(1))
    subscription.cancel()
    XCTAssertTrue(IIOSensorSource.waitForReadersToStop(timeout: 5))
    XCTAssertEqual(tree.read(0, "buffer/enable"), "0")
  }

  // MARK: Files that are not attributes

  /// A FIFO, a link to `/dev/zero` and an oversized file as attributes: refused at once with what
  /// they are, for reading and writing. The FIFO used to block the `open` for ever and `/dev/zero`
  /// was read until memory ran out; a real attribute (a regular file) still reads.
  func testAttributesThatAreNotRegularFilesAreRefusedWithoutBlocking() throws {
    let tree = try IIOFakeTree()
    let system = IIOSystem()
    let fifo = tree.base + "/fifo_attribute"
    XCTAssertEqual(mkfifo(fifo, 0o600), 0, "mkfifo errno \(errno)")
    XCTAssertEqual(
      finishing { system.readAttribute(fifo) }, .failure(.notRegularFile("a pipe (FIFO)")),
      "read")
    XCTAssertEqual(
      finishing { system.writeAttribute(fifo, "1").map { "written" } },
      .failure(.notRegularFile("a pipe (FIFO)")), "write")

    let large = tree.base + "/large_attribute"
    let limit = IIOSystem.maximumAttributeSize
    try String(repeating: "7", count: limit).write(
      toFile: large, atomically: false, encoding: .utf8)
    // Compared by length: a failure message quoting 64 KiB of text helps nobody.
    XCTAssertEqual(system.readAttribute(large).map(\.count), .success(limit), "at the limit")
    try String(repeating: "7", count: limit + 1).write(
      toFile: large, atomically: false, encoding: .utf8)
    XCTAssertEqual(system.readAttribute(large).map(\.count), .failure(.tooLarge))
    XCTAssertTrue(IIOSystemError.tooLarge.phrase.contains("64 KiB"))

    let zero = tree.base + "/zero_attribute"
    XCTAssertEqual(symlink("/dev/zero", zero), 0, "symlink errno \(errno)")
    XCTAssertEqual(
      finishing { system.readAttribute(zero) }, .failure(.notRegularFile("a character device")))

    let regular = tree.base + "/regular_attribute"
    try "42\n".write(toFile: regular, atomically: false, encoding: .utf8)
    XCTAssertEqual(system.readAttribute(regular), .success("42\n"))
    XCTAssertEqual(system.writeAttribute(regular, "43").map { "written" }, .success("written"))
    XCTAssertEqual(system.readAttribute(regular), .success("43\n"))
  }

  /// Behind a source: a FIFO for the device's `name` no longer hangs discovery (the device is
  /// named by its folder), and a value attribute linked to `/dev/zero` is a failure naming it.
  func testSourceWithAFIFONameAndADevZeroValueFailsClearly() throws {
    let tree = try Fixtures.mpu6050Tree()
    let device = tree.devicePath(0)
    unlink(device + "/name")
    XCTAssertEqual(mkfifo(device + "/name", 0o600), 0, "mkfifo errno \(errno)")
    unlink(device + "/in_accel_x_raw")
    XCTAssertEqual(symlink("/dev/zero", device + "/in_accel_x_raw"), 0, "symlink errno \(errno)")
    let (sysfsRoot, devRoot) = (tree.sysfsRoot, tree.devRoot)
    let discovered = finishing {
      Result {
        try IIOSensorSource.discover(
          sysfsRoot: sysfsRoot, devRoot: devRoot, configuration: Fixtures.configuration(.polled),
          system: IIOSystem())
      }
    }
    let found = try XCTUnwrap(discovered, "discovery did not finish")
    let source = try XCTUnwrap(try found.get())
    source.warningHandler = { _ in }
    XCTAssertEqual(source.name, "iio:iio:device0")
    let (collector, subscription) = Fixtures.collect(source, rate: 50)
    defer { subscription.cancel() }
    let failure = try XCTUnwrap(collector.waitForFailure(.other))
    for part in ["in_accel_x_raw", "a character device, not a regular file"] {
      XCTAssertTrue(failure.message.contains(part), "\(part): \(failure.message)")
    }
  }

  // MARK: Configuration file

  /// `COREMOTION_IIO_CONFIG` naming a FIFO, `/dev/zero` or a file over 64 KiB: an error saying
  /// so, at once. The FIFO used to block discovery (`CMMotionManager()` with the automatic
  /// source) for ever, and `/dev/zero` was read until memory ran out.
  func testConfigurationFileMustBeASmallRegularFile() throws {
    let tree = try IIOFakeTree()
    let fifo = tree.base + "/iio.conf.fifo"
    XCTAssertEqual(mkfifo(fifo, 0o600), 0, "mkfifo errno \(errno)")
    let large = tree.base + "/iio.conf.large"
    let comment = "# " + String(repeating: "-", count: 99) + "\n"
    try String(repeating: comment, count: IIOConfiguration.maximumFileSize / 100 + 1).write(
      toFile: large, atomically: false, encoding: .utf8)
    for (file, expected) in [
      (fifo, "is a pipe (FIFO), not a regular file"),
      (large, "is larger than 64 KiB"),
      ("/dev/zero", "is a character device, not a regular file"),
    ] {
      let outcome = finishing {
        Result { try IIOConfiguration.fromEnvironment(["COREMOTION_IIO_CONFIG": file]) }
      }
      guard let outcome else {
        XCTFail("reading \(file) did not finish")
        continue
      }
      XCTAssertThrowsError(try outcome.get(), file) { error in
        let text = String(describing: error)
        XCTAssertTrue(text.contains("COREMOTION_IIO_CONFIG=\(file)"), text)
        XCTAssertTrue(text.contains(expected), text)
      }
    }
  }

  // MARK: Values

  /// A `_raw` value that parses but is absurd (`1e308`) gives an infinite value once scaled: the
  /// polled sample carrying it was delivered, and `motionctl monitor` dropped it and printed
  /// nothing while `record` stopped on it. It is an advisory failure naming the attribute now.
  func testPolledValueBeyondDoubleAfterScalingIsAFailureNotASample() throws {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "in_accel_scale", "1000")
    try tree.write(0, "in_accel_x_raw", "1e308")
    let (collector, subscription) = try Fixtures.collect(Fixtures.source(tree, .polled))
    defer { subscription.cancel() }
    let failure = try XCTUnwrap(collector.waitForFailure(.other, timeout: 10))
    XCTAssertFalse(failure.isFatal, "the device is tried again")
    XCTAssertTrue(failure.message.contains("in_accel_x_raw"), failure.message)
    XCTAssertTrue(collector.samples.allSatisfy(\.isFinite), "no infinite sample delivered")
  }

  /// A `_raw` value that parses and stays finite once scaled but is absurd (`1e300` × 0.000598
  /// m/s²) was delivered as a measurement. It is an advisory failure naming the attribute, as an
  /// infinite one is.
  func testPolledValueBeyondMeasurementIsAFailureNotASample() throws {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "in_accel_x_raw", "1e300")
    let (collector, subscription) = try Fixtures.collect(Fixtures.source(tree, .polled))
    defer { subscription.cancel() }
    let failure = try XCTUnwrap(collector.waitForFailure(.other, timeout: 10))
    XCTAssertFalse(failure.isFatal, "the device is tried again")
    XCTAssertTrue(failure.message.contains("in_accel_x_raw=1e+300"), failure.message)
    let xs = collector.samples.compactMap(\.accelerometer?.x)
    XCTAssertTrue(xs.allSatisfy { abs($0) < 1000 }, "no absurd sample delivered: \(xs)")
  }

  /// A scale whose one count is beyond measurement (`1e308`), an offset that alone moves every
  /// reading beyond it, and a mount matrix with an entry of `1e308` were taken as they were, and
  /// made every value of their channels infinite or absurd. Each is ignored with a warning naming
  /// the attribute, as an infinite one is.
  func testAbsurdScaleOffsetAndMountMatrixAreIgnoredWithAWarning() throws {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "in_accel_scale", "1e308")
    try tree.write(0, "in_temp_offset", "1e308")
    try tree.write(0, "in_anglvel_mount_matrix", "1e308, 0, 0; 0, 1, 0; 0, 0, 1")
    let device = try XCTUnwrap(
      IIOSensorSource.listDevices(sysfsRoot: tree.sysfsRoot, devRoot: tree.devRoot).first)
    XCTAssertEqual(device.channels(of: .accelerometer).map(\.scale), [1, 1, 1])
    XCTAssertEqual(device.channels(of: .temperature).map(\.offset), [0])
    XCTAssertEqual(device.mountMatrix(for: .gyroscope), .identity)
    let warnings = try Fixtures.source(tree, .polled).warnings
    for expected in [
      "mpu6050: ignored unusable in_accel_scale \"1e308\" (one count would be more than",
      "mpu6050: ignored unusable in_temp_offset \"1e308\" (it would move every reading by",
      "mpu6050: ignored unusable in_anglvel_mount_matrix \"1e308, 0, 0; 0, 1, 0; 0, 0, 1\"",
    ] {
      XCTAssertEqual(warnings.filter { $0.contains(expected) }.count, 1, "\(warnings)")
    }
  }

  /// A rate list with a word in it (`10 20 abc 50`) was used without the word, saying nothing. The
  /// list is ignored with a warning quoting it, as an unparsable scale is.
  func testRateListWithAWordIsAWarning() throws {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "sampling_frequency_available", "10 20 abc 50\n")
    let device = try XCTUnwrap(
      IIOSensorSource.listDevices(sysfsRoot: tree.sysfsRoot, devRoot: tree.devRoot).first)
    XCTAssertNil(device.samplingControls.first?.available)
    let warnings = try Fixtures.source(tree, .polled).warnings
    XCTAssertEqual(
      warnings.filter {
        $0.contains("mpu6050: ignored unparsable sampling_frequency_available \"10 20 abc 50\"")
      }.count, 1, "\(warnings)")
  }

  /// An unparsable polled value is quoted as read but trimmed, and cut short: the attribute's
  /// newline used to end the warning's first line inside the quotes, and a 64 KiB attribute was
  /// quoted whole.
  func testUnparsablePolledValueIsQuotedOnOneLineAndShort() throws {
    let long = String(repeating: "z", count: 60_000)
    for (content, quoted) in [("abc", "\"abc\""), (long, "\"" + long.prefix(40) + "…\"")] {
      let tree = try Fixtures.mpu6050Tree()
      try tree.write(0, "in_accel_x_raw", content)
      let (collector, subscription) = try Fixtures.collect(Fixtures.source(tree, .polled))
      defer { subscription.cancel() }
      let failure = try XCTUnwrap(collector.waitForFailure(.other, timeout: 10))
      XCTAssertTrue(failure.message.contains("in_accel_x_raw \(quoted); retrying"), failure.message)
      XCTAssertLessThan(failure.message.count, 200)
    }
  }

  /// A buffer record beyond measurement once scaled (30 000 m/s², about 3000 g, from a scale of 1)
  /// was delivered as a sample; an infinite one (an absurd scale, now refused at discovery) made a
  /// monitor print nothing and `record` stop. They are left out and counted, and the records around
  /// them still arrive.
  func testBufferedRecordsBeyondMeasurementOnceScaledAreLeftOutAndCounted() throws {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "in_accel_scale", "1")
    let (collector, subscription) = try Fixtures.collect(Fixtures.source(tree, .buffered))
    defer { subscription.cancel() }
    let writer = try IIOFIFOWriter(path: tree.nodePath(0), timeout: 20)
    let layout = Fixtures.mpuLayout()
    func record(_ accelerometerZ: Int64, _ n: Int64) -> [UInt8] {
      layout.pack([
        "in_accel_x": 0, "in_accel_y": 0, "in_accel_z": accelerometerZ, "in_temp": 0,
        "in_anglvel_x": 0, "in_anglvel_y": 0, "in_anglvel_z": 0,
        "in_timestamp": 5_000_000_000 + n * 10_000_000,
      ])
    }
    // 30 000 m/s² is beyond measurement; 1000 m/s² (about 100 g) is not.
    writer.write(record(1000, 0) + record(30000, 1) + record(30000, 2) + record(1000, 3))
    XCTAssertTrue(collector.waitForSamples(2, timeout: 20))
    let failure = try XCTUnwrap(collector.waitForFailure(.other, timeout: 20))
    XCTAssertFalse(failure.isFatal, failure.message)
    XCTAssertTrue(failure.message.contains("left out"), failure.message)
    XCTAssertTrue(failure.message.contains("beyond what its sensor can measure"), failure.message)
    XCTAssertEqual(collector.samples.compactMap(\.accelerometer?.z), [1000, 1000])
  }

  /// Two enabled scan elements with one index (the kernel numbers them uniquely): the record's
  /// order was guessed from their names, which can swap axes silently. The buffer fails instead,
  /// naming both attributes.
  func testScanElementsSharingAnIndexFailTheBuffer() throws {
    let tree = try Fixtures.mpu6050Tree()
    let xIndex = try XCTUnwrap(tree.read(0, "scan_elements/in_accel_x_index"))
    try tree.write(0, "scan_elements/in_accel_y_index", xIndex)
    let (collector, subscription) = try Fixtures.collect(Fixtures.source(tree, .buffered))
    defer { subscription.cancel() }
    let failure = try XCTUnwrap(collector.waitForFailure(.other, timeout: 10))
    XCTAssertTrue(failure.isFatal, failure.message)
    XCTAssertTrue(
      failure.message.contains("in_accel_x_index and in_accel_y_index are both \(xIndex)"),
      failure.message)
  }

  /// A buffer node that is a regular file (`COREMOTION_IIO_DEV` may name any folder) was read to
  /// its end, opened again and read again for ever: its records delivered as new samples, a core
  /// kept busy. It is refused on opening, saying what it is.
  func testBufferNodeThatIsARegularFileIsRefused() throws {
    let tree = try Fixtures.mpu6050Tree()
    unlink(tree.nodePath(0))
    // Two whole mpu6050 records (16 bytes each).
    XCTAssertTrue(
      FileManager.default.createFile(
        atPath: tree.nodePath(0), contents: Data(repeating: 1, count: 32)))
    let (collector, subscription) = try Fixtures.collect(Fixtures.source(tree, .buffered))
    defer { subscription.cancel() }
    let failure = try XCTUnwrap(collector.waitForFailure(.other, timeout: 10))
    XCTAssertTrue(failure.isFatal, failure.message)
    XCTAssertTrue(failure.message.contains("it is a regular file"), failure.message)
    XCTAssertTrue(collector.samples.isEmpty, "\(collector.samples.count) samples from a file")
  }

  /// A buffer node that is a character device ending at every read (`/dev/null`) was opened again
  /// at every end, keeping a core busy and saying nothing. It is a failure saying the node ended.
  func testBufferNodeThatEndsIsAFailure() throws {
    let tree = try Fixtures.mpu6050Tree()
    unlink(tree.nodePath(0))
    XCTAssertEqual(symlink("/dev/null", tree.nodePath(0)), 0, "symlink errno \(errno)")
    let source = try Fixtures.source(tree, .buffered)
    let (collector, subscription) = Fixtures.collect(source)
    defer { subscription.cancel() }
    let failure = try XCTUnwrap(collector.waitForFailure(.other, timeout: 10))
    XCTAssertTrue(failure.isFatal, failure.message)
    XCTAssertTrue(failure.message.contains("reached its end"), failure.message)
  }

  /// A scale that cannot be used (unparsable, or a FIFO in place of the file) is ignored, so the
  /// values are read unscaled: the note saying so was shown by `motionctl sensors --iio` only (once
  /// per axis), never while reading, and an unreadable scale had no note at all. Each is a warning
  /// of the source now, once.
  func testIgnoredAttributesAreWarningsOfTheSourceOnce() throws {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "in_accel_scale", "abc")
    let gyroscopeScale = tree.devicePath(0) + "/in_anglvel_scale"
    unlink(gyroscopeScale)
    XCTAssertEqual(mkfifo(gyroscopeScale, 0o600), 0, "mkfifo errno \(errno)")
    let source = try Fixtures.source(tree, .polled)
    let warnings = source.warnings
    XCTAssertEqual(
      warnings.filter { $0.contains("mpu6050: ignored unparsable in_accel_scale \"abc\"") }.count,
      1, "\(warnings)")
    XCTAssertEqual(
      warnings.filter { $0.contains("mpu6050: ignored unreadable in_anglvel_scale") }.count, 1,
      "\(warnings)")
  }
}

/// Runs `body` on a thread of its own and returns its result, or nil when it has not finished
/// within `timeout` seconds (what a hang looks like; the thread is left blocked).
func finishing<T: Sendable>(within timeout: Double = 5, _ body: @escaping @Sendable () -> T) -> T? {
  let result = Locked<T?>(nil)
  let done = DispatchSemaphore(value: 0)
  Thread {
    let value = body()
    result.withLock { $0 = value }
    done.signal()
  }.start()
  guard done.wait(timeout: .now() + timeout) == .success else { return nil }
  return result.withLock { $0 }
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
