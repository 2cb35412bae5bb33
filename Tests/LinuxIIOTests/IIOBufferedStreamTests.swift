// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest
import _LinuxIIOTestSupport

@testable import LinuxIIO

/// Waits (bounded) until `condition` holds; for effects the reader thread has after `cancel()`.
func eventually(timeout: Double = 2, _ condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(timeout)
  while !condition() {
    if Date() > deadline { return false }
    usleep(1000)
  }
  return true
}

final class IIOBufferedStreamTests: XCTestCase {
  /// Tolerance for values computed two ways in floating point (scale × raw, matrix products).
  let tolerance = 1e-12

  /// mpu6050: one device, `be:s16/16`, accelerometer + temperature + gyroscope, PinePhone mount
  /// matrix; the full enable sequence, boottime timestamps, restore on the last cancel.
  func testMpu6050BufferedStreamWithMountMatrix() throws {
    let tree = try IIOFakeTree()
    try Fixtures.mpu6050(tree, mountMatrix: "0, 1, 0; -1, 0, 0; 0, 0, -1")
    let source = try Fixtures.source(tree, .buffered)
    let (collector, subscription) = Fixtures.collect(source, rate: 60)
    let writer = try IIOFIFOWriter(path: tree.nodePath(0))

    // The set-up sequence left these behind before opening the node.
    XCTAssertEqual(tree.read(0, "sampling_frequency"), "100", "slowest offered rate ≥ 60 Hz")
    XCTAssertEqual(tree.read(0, "current_timestamp_clock"), "boottime")
    for element in Fixtures.mpuScanElements {
      XCTAssertEqual(tree.read(0, "scan_elements/\(element.name)_en"), "1", element.name)
    }
    XCTAssertEqual(tree.read(0, "trigger/current_trigger"), "mpu6050-dev0", "kept the driver's own")
    XCTAssertEqual(tree.read(0, "buffer/length"), "128")
    XCTAssertEqual(tree.read(0, "buffer/watermark"), "1")
    XCTAssertEqual(tree.read(0, "buffer/enable"), "1")

    let layout = Fixtures.mpuLayout()
    func record(_ n: Int64) -> [UInt8] {
      layout.pack([
        "in_accel_x": -16, "in_accel_y": 16384, "in_accel_z": 200 + n, "in_temp": -1000,
        "in_anglvel_x": 10, "in_anglvel_y": -20, "in_anglvel_z": 30,
        "in_timestamp": 5_000_000_000 + n * 10_000_000,
      ])
    }
    writer.write(record(0) + record(1) + record(2))
    // A record split over two writes must still decode once complete.
    let fourth = record(3)
    writer.write(Array(fourth.prefix(10)))
    XCTAssertTrue(collector.waitForSamples(3))
    writer.write(Array(fourth.dropFirst(10)))
    XCTAssertTrue(collector.waitForSamples(4))
    XCTAssertEqual(source.readModes, ["mpu6050": .buffered])

    let samples = collector.samples
    XCTAssertEqual(samples.map(\.timestamp), [5.0, 5.01, 5.02, 5.03])
    let s = 0.000598
    let first = try XCTUnwrap(samples.first)
    // corrected = M·v with rows (0,1,0), (−1,0,0), (0,0,−1).
    assertClose(first.accelerometer, SIMD3(16384 * s, 16 * s, -200 * s), tolerance: tolerance)
    let g = 0.001064724
    assertClose(first.gyroscope, SIMD3(-20 * g, -10 * g, -30 * g), tolerance: tolerance)
    XCTAssertEqual(first.temperature!, (-1000 + 7011) * 2.995178 / 1000, accuracy: tolerance)
    XCTAssertNil(first.magnetometer)
    XCTAssertEqual(samples[3].accelerometer!.z, -203 * s, accuracy: tolerance)

    subscription.cancel()
    XCTAssertTrue(eventually { tree.read(0, "buffer/enable") == "0" }, "buffer disabled")
    XCTAssertTrue(eventually { tree.read(0, "scan_elements/in_timestamp_en") == "0" }, "restored")
    XCTAssertTrue(eventually { source.readModes.isEmpty })
    let count = collector.samples.count
    writer.write(record(4))
    XCTAssertEqual(collector.samples.count, count, "nothing after cancel")
  }

  /// A HID sensor hub 2-in-1: `accel_3d`, `gyro_3d`, `magn_3d` as three devices with 16-bit
  /// values in 32-bit slots (upper halves holding junk), per-type rates, triggers found by name,
  /// and the Windows gravity sign flipped to specific force.
  func testHidSensorHubThreeDevices() throws {
    let tree = try IIOFakeTree()
    try Fixtures.hidHub(tree)
    let source = try Fixtures.source(tree, .buffered)
    XCTAssertEqual(source.name, "iio:accel_3d+gyro_3d+magn_3d")
    XCTAssertEqual(source.availableSensors, .nineAxis)
    let (collector, subscription) = Fixtures.collect(source)
    let writers = try (0..<3).map { try IIOFIFOWriter(path: tree.nodePath($0)) }

    for (index, type) in [(0, "accel"), (1, "anglvel"), (2, "magn")] {
      XCTAssertEqual(tree.read(index, "in_\(type)_sampling_frequency"), "100")
      XCTAssertEqual(
        tree.read(index, "trigger/current_trigger"),
        "\(["accel_3d", "gyro_3d", "magn_3d"][index])-dev\(index)")
    }
    let ns: Int64 = 7_000_000_000
    writers[0].write(
      Fixtures.hidLayout("accel").pack(
        ["in_accel_x": -39, "in_accel_y": -937, "in_accel_z": -378, "in_timestamp": ns],
        garbage: 0xfe7f))
    writers[1].write(
      Fixtures.hidLayout("anglvel").pack(
        [
          "in_anglvel_x": 100, "in_anglvel_y": -100, "in_anglvel_z": 0,
          "in_timestamp": ns + 1_000_000,
        ],
        garbage: 0xfc69))
    writers[2].write(
      Fixtures.hidLayout("magn").pack(
        ["in_magn_x": 250, "in_magn_y": -120, "in_magn_z": -400, "in_timestamp": ns + 2_000_000]))
    XCTAssertTrue(collector.waitForSamples(3))
    subscription.cancel()

    let samples = collector.samples
    let accel = try XCTUnwrap(samples.first { $0.accelerometer != nil })
    // An upright laptop lid: the Windows-convention −9.19 on y becomes +9.19 specific force.
    assertClose(accel.accelerometer, SIMD3(39, 937, 378) * 0.009807, tolerance: tolerance)
    XCTAssertNil(accel.gyroscope, "separate devices tick separately")
    XCTAssertEqual(accel.timestamp, 7.0)
    let gyro = try XCTUnwrap(samples.first { $0.gyroscope != nil })
    assertClose(gyro.gyroscope, SIMD3(100, -100, 0) * 0.000174533, tolerance: tolerance)
    let magn = try XCTUnwrap(samples.first { $0.magnetometer != nil })
    // 0.001 G per LSB = 0.1 µT per LSB.
    assertClose(magn.magnetometer, SIMD3(25, -12, -40), tolerance: 1e-9)
    XCTAssertEqual(magn.timestamp, 7.002, accuracy: 1e-12)
    XCTAssertTrue(eventually { (0..<3).allSatisfy { tree.read($0, "buffer/enable") == "0" } })
    XCTAssertTrue(eventually { tree.read(0, "trigger/current_trigger") == "NULL" }, "detached")
  }

  /// bmi160: gyroscope scan indexes before the accelerometer's, per-type rate lists, and a
  /// triggered buffer whose trigger (`bmi160-dev2`) must be attached by name.
  func testBmi160GyroscopeBeforeAccelerometer() throws {
    let tree = try IIOFakeTree()
    try Fixtures.bmi160(tree, index: 2)
    let source = try Fixtures.source(tree, .buffered)
    XCTAssertEqual(source.supportedSampleRates, 0.78125...3200)
    let (collector, subscription) = Fixtures.collect(source, rate: 60)
    let writer = try IIOFIFOWriter(path: tree.nodePath(2))
    XCTAssertEqual(tree.read(2, "trigger/current_trigger"), "bmi160-dev2")
    XCTAssertEqual(tree.read(2, "in_accel_sampling_frequency"), "100")
    XCTAssertEqual(tree.read(2, "in_anglvel_sampling_frequency"), "100")

    writer.write(
      Fixtures.bmiLayout().pack([
        "in_anglvel_x": 100, "in_anglvel_y": -200, "in_anglvel_z": 300,
        "in_accel_x": 1000, "in_accel_y": 2000, "in_accel_z": 16384, "in_timestamp": 1_500_000_000,
      ]))
    XCTAssertTrue(collector.waitForSamples(1))
    subscription.cancel()
    let sample = try XCTUnwrap(collector.samples.first)
    assertClose(sample.gyroscope, SIMD3(100, -200, 300) * 0.001065, tolerance: tolerance)
    assertClose(sample.accelerometer, SIMD3(1000, 2000, 16384) * 0.000598, tolerance: tolerance)
    XCTAssertEqual(sample.timestamp, 1.5)
    XCTAssertTrue(eventually { tree.read(2, "trigger/current_trigger") == "NULL" })
  }

  /// An mpu6050 whose `current_timestamp_clock` reads `clock` and cannot be switched to boottime,
  /// read buffered: the timestamp of its first sample, the record `record` builds (given the
  /// system, whose clocks it may read), and the boot clock just before that record was written.
  private func firstTimestamp(
    clockLeftAt clock: String, record: (FaultInjectingSystem) throws -> [String: Int64]
  ) throws -> (timestamp: Double, bootAtWrite: Double) {
    let tree = try Fixtures.mpu6050Tree()
    try tree.write(0, "current_timestamp_clock", clock)
    let system = FaultInjectingSystem()
    system.failWrite("current_timestamp_clock", .permissionDenied)
    let source = try Fixtures.source(tree, .buffered, system: system)
    let (collector, subscription) = Fixtures.collect(source)
    defer { subscription.cancel() }
    let writer = try IIOFIFOWriter(path: tree.nodePath(0))
    XCTAssertEqual(tree.read(0, "current_timestamp_clock"), clock)
    let values = try record(system)
    let bootAtWrite = BootClock.now
    writer.write(Fixtures.mpuLayout().pack(values))
    XCTAssertTrue(collector.waitForSamples(1))
    return (try XCTUnwrap(collector.samples.first).timestamp, bootAtWrite)
  }

  /// When `current_timestamp_clock` cannot be switched to boottime, realtime stamps are converted.
  func testRealtimeTimestampsAreConvertedToBootTime() throws {
    let (timestamp, bootAtWrite) = try firstTimestamp(clockLeftAt: "realtime") { system in
      let realtime = try XCTUnwrap(system.clockTime(named: "realtime"))
      return ["in_timestamp": Int64(realtime * 1e9)]
    }
    // Tolerance: the two clocks are read microseconds apart; 50 ms covers a loaded machine.
    XCTAssertEqual(timestamp, bootAtWrite, accuracy: 0.05)
  }

  /// A buffer on a clock this reader cannot read (not one of the kernel's clock names) cannot be
  /// converted to the boot clock: its samples are stamped when they arrive, as the warning says.
  /// Before, the warning said so but the channel's raw stamps were passed on as boot times (here
  /// 5 s, where the boot clock reads hours or days).
  func testAnUnknownTimestampClockStampsSamplesOnArrival() throws {
    let (timestamp, bootAtWrite) = try firstTimestamp(clockLeftAt: "hardware") { _ in
      ["in_accel_z": 1, "in_timestamp": 5_000_000_000]
    }
    // Tolerance: arrival is read when the record is decoded; 0.5 s covers a loaded machine.
    XCTAssertEqual(timestamp, bootAtWrite, accuracy: 0.5)
  }

  /// Several subscribers share one reader: the node is opened once and everyone gets every sample.
  func testOneReaderFansOutToAllSubscribers() throws {
    let tree = try Fixtures.mpu6050Tree()
    let system = FaultInjectingSystem()
    let source = try Fixtures.source(tree, .buffered, system: system)
    let first = EventCollector()
    let second = EventCollector()
    let a = source.subscribe(requestedSampleRate: 100, first.handler)
    let b = source.subscribe(requestedSampleRate: 100, second.handler)
    let writer = try IIOFIFOWriter(path: tree.nodePath(0))
    let layout = Fixtures.mpuLayout()
    for n in 0..<5 {
      writer.write(layout.pack(["in_accel_z": Int64(n), "in_timestamp": Int64(n)]))
    }
    XCTAssertTrue(first.waitForSamples(5))
    XCTAssertTrue(second.waitForSamples(5))
    XCTAssertEqual(first.samples, second.samples)
    XCTAssertEqual(system.opens.withLock { $0 }, [tree.nodePath(0)], "one open for two subscribers")

    a.cancel()
    writer.write(layout.pack(["in_accel_z": 99, "in_timestamp": 99]))
    XCTAssertTrue(second.waitForSamples(6))
    XCTAssertEqual(first.samples.count, 5)
    XCTAssertEqual(tree.read(0, "buffer/enable"), "1", "still streaming for the second")
    b.cancel()
    XCTAssertTrue(eventually { tree.read(0, "buffer/enable") == "0" })
  }

  /// The benchmark hook replays records end to end.
  func testBenchmarkHookReplaysRecords() throws {
    let result = try IIOBenchmark.replayBufferedStream(records: 200)
    print("IIOBenchmark (unpaced, this build): \(result)")
    XCTAssertEqual(result.delivered, 200)
    XCTAssertGreaterThan(result.cpuSeconds, 0)
    XCTAssertGreaterThan(result.coreShare(atRate: 100), 0)
  }

  /// A real-time 100 Hz stream for 3 s (set `IIO_BENCHMARK_PACED=1`; too slow for every run).
  func testBenchmarkHookPacedStream() throws {
    guard ProcessInfo.processInfo.environment["IIO_BENCHMARK_PACED"] == "1" else {
      throw XCTSkip("set IIO_BENCHMARK_PACED=1 to run the 3 s paced benchmark")
    }
    let result = try IIOBenchmark.replayBufferedStream(records: 300, rate: 100)
    print(
      "IIOBenchmark (100 Hz paced, this build): \(result), ", result.coreShare(atRate: 100) * 100,
      "% of a core")
    XCTAssertEqual(result.delivered, 300)
    XCTAssertGreaterThan(result.wallSeconds, 2.9, "paced in real time")
  }
}
