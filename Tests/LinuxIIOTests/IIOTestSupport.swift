// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest
import _LinuxIIOTestSupport
import _MotionTestSupport

@testable import LinuxIIO

/// Collects a source's events and lets a test wait for them (bounded; no fixed sleeps).
final class EventCollector: @unchecked Sendable {
  private let condition = NSCondition()
  private var events: [SourceEvent] = []

  var handler: @Sendable (SourceEvent) -> Void {
    { [self] event in
      condition.lock()
      events.append(event)
      condition.broadcast()
      condition.unlock()
    }
  }

  var samples: [MotionSample] {
    snapshot.compactMap { if case .sample(let s) = $0 { return s } else { return nil } }
  }

  var failures: [SourceFailure] {
    snapshot.compactMap { if case .failure(let f) = $0 { return f } else { return nil } }
  }

  var snapshot: [SourceEvent] {
    condition.lock()
    defer { condition.unlock() }
    return events
  }

  /// Waits until `predicate` holds for the events so far; false after `timeout` seconds.
  @discardableResult
  func wait(timeout: Double = 3, until predicate: ([SourceEvent]) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    condition.lock()
    defer { condition.unlock() }
    while !predicate(events) {
      if !condition.wait(until: deadline) { return predicate(events) }
    }
    return true
  }

  /// Waits for at least `count` samples.
  @discardableResult
  func waitForSamples(_ count: Int, timeout: Double = 3) -> Bool {
    wait(timeout: timeout) { events in
      events.filter { if case .sample = $0 { return true } else { return false } }.count >= count
    }
  }

  /// Waits for a failure of `kind`.
  @discardableResult
  func waitForFailure(_ kind: SourceFailure.Kind, timeout: Double = 3) -> SourceFailure? {
    var found: SourceFailure?
    wait(timeout: timeout) { events in
      for case .failure(let failure) in events where failure.kind == kind { found = failure }
      return found != nil
    }
    return found
  }
}

/// An ``IIOSystem`` that injects the errors a fake tree cannot produce (tests run as root, and
/// regular files never answer EBUSY) and counts device opens.
final class FaultInjectingSystem: IIOSystem, @unchecked Sendable {
  let openFaults = Locked<[String: IIOSystemError]>([:])
  let writeFaults = Locked<[String: IIOSystemError]>([:])
  let readFaults = Locked<[String: IIOSystemError]>([:])
  let opens = Locked<[String]>([])
  /// The paths written, in order (refused writes too).
  let writes = Locked<[String]>([])
  /// How many reads failed by injection.
  let readFaultHits = Locked(0)

  /// Fails opens of paths ending in `suffix`.
  func failOpen(_ suffix: String, _ error: IIOSystemError) {
    openFaults.withLock { $0[suffix] = error }
  }
  func failWrite(_ suffix: String, _ error: IIOSystemError) {
    writeFaults.withLock { $0[suffix] = error }
  }
  func failRead(_ suffix: String, _ error: IIOSystemError) {
    readFaults.withLock { $0[suffix] = error }
  }

  private func fault(_ table: Locked<[String: IIOSystemError]>, _ path: String) -> IIOSystemError? {
    table.withLock { faults in faults.first { path.hasSuffix($0.key) }?.value }
  }

  override func openDevice(_ path: String) -> Result<Int32, IIOSystemError> {
    opens.withLock { $0.append(path) }
    if let error = fault(openFaults, path) { return .failure(error) }
    return super.openDevice(path)
  }

  override func writeAttribute(_ path: String, _ value: String) -> Result<Void, IIOSystemError> {
    writes.withLock { $0.append(path) }
    if let error = fault(writeFaults, path) { return .failure(error) }
    return super.writeAttribute(path, value)
  }

  override func readAttribute(_ path: String) -> Result<String, IIOSystemError> {
    if let error = fault(readFaults, path) {
      readFaultHits.withLock { $0 += 1 }
      return .failure(error)
    }
    return super.readAttribute(path)
  }
}

/// Fixtures with values from real drivers (see /work/shared/reference/linux-iio.md §1.5).
enum Fixtures {
  static let mpuScanElements: [IIOFakeTree.ScanElement] =
    [
      "in_accel_x", "in_accel_y", "in_accel_z", "in_temp", "in_anglvel_x", "in_anglvel_y",
      "in_anglvel_z",
    ].enumerated().map { .init(name: $1, index: $0, type: "be:s16/16>>0") }
    + [.init(name: "in_timestamp", index: 7, type: "le:s64/64>>0")]

  /// An inv_mpu6050 (PinePhone, RPi breakout): accelerometer, gyroscope and temperature in one
  /// device, big-endian 16-bit scan elements, its own trigger attached.
  static func mpu6050(
    _ tree: IIOFakeTree, index: Int = 0, mountMatrix: String? = nil, clock: String = "realtime"
  ) throws {
    var attributes = [
      "in_accel_x_raw": "-16", "in_accel_y_raw": "16384", "in_accel_z_raw": "200",
      "in_accel_scale": "0.000598",
      "in_accel_scale_available": "0.000598 0.001196 0.002392 0.004785",
      "in_accel_x_calibbias": "1234",
      "in_anglvel_x_raw": "10", "in_anglvel_y_raw": "-20", "in_anglvel_z_raw": "30",
      "in_anglvel_scale": "0.001064724",
      "in_temp_raw": "-1000", "in_temp_offset": "7011", "in_temp_scale": "2.995178",
      "sampling_frequency": "50", "sampling_frequency_available": "10 20 50 100 200 500",
    ]
    if let mountMatrix {
      attributes["in_accel_mount_matrix"] = mountMatrix
      attributes["in_anglvel_mount_matrix"] = mountMatrix
    }
    try tree.addDevice(
      index: index, name: "mpu6050", attributes: attributes, scanElements: mpuScanElements,
      timestampClock: clock, currentTrigger: "mpu6050-dev\(index)")
    try tree.addTrigger(index: index, name: "mpu6050-dev\(index)")
  }

  static func mpuLayout() -> IIOScanLayout {
    IIOScanLayout(
      mpuScanElements.map {
        .init(name: $0.name, index: $0.index, type: IIOScanType(parsing: $0.type)!)
      })
  }

  /// A HID sensor hub 2-in-1: `accel_3d`, `gyro_3d`, `magn_3d` as separate devices with 16-bit
  /// values in 32-bit little-endian slots, per-type sampling frequencies and no trigger attached.
  static func hidHub(_ tree: IIOFakeTree) throws {
    for (index, name, type, scale) in [
      (0, "accel_3d", "accel", "0.009807"), (1, "gyro_3d", "anglvel", "0.000174533"),
      (2, "magn_3d", "magn", "0.001"),
    ] {
      var attributes = [
        "in_\(type)_scale": scale, "in_\(type)_offset": "0",
        "in_\(type)_sampling_frequency": "10", "in_\(type)_hysteresis": "0",
      ]
      let raws = type == "accel" ? ["-39", "-937", "-378"] : ["1", "2", "3"]
      for (axis, raw) in zip(["x", "y", "z"], raws) { attributes["in_\(type)_\(axis)_raw"] = raw }
      let elements: [IIOFakeTree.ScanElement] =
        ["x", "y", "z"].enumerated().map {
          .init(name: "in_\(type)_\($1)", index: $0, type: "le:s16/32>>0")
        } + [.init(name: "in_timestamp", index: 3, type: "le:s64/64>>0")]
      try tree.addDevice(
        index: index, name: name, attributes: attributes, scanElements: elements,
        currentTrigger: "")
      try tree.addTrigger(index: index, name: "\(name)-dev\(index)")
    }
  }

  static func hidLayout(_ type: String) -> IIOScanLayout {
    IIOScanLayout(
      ["x", "y", "z"].enumerated().map {
        .init(name: "in_\(type)_\($1)", index: $0, type: IIOScanType(parsing: "le:s16/32>>0")!)
      } + [.init(name: "in_timestamp", index: 3, type: IIOScanType(parsing: "le:s64/64>>0")!)])
  }

  static let bmiScanElements: [IIOFakeTree.ScanElement] =
    ["in_anglvel_x", "in_anglvel_y", "in_anglvel_z", "in_accel_x", "in_accel_y", "in_accel_z"]
    .enumerated().map { .init(name: $1, index: $0 + 4, type: "le:s16/16>>0") }
    + [.init(name: "in_timestamp", index: 10, type: "le:s64/64>>0")]

  /// A bmi160: gyroscope scan indexes (4–6) before the accelerometer's (7–9), per-type rates, a
  /// triggered buffer with no trigger attached yet.
  static func bmi160(_ tree: IIOFakeTree, index: Int = 2) throws {
    try tree.addDevice(
      index: index, name: "bmi160",
      attributes: [
        "in_accel_x_raw": "0", "in_accel_y_raw": "0", "in_accel_z_raw": "16384",
        "in_accel_scale": "0.000598", "in_anglvel_x_raw": "0", "in_anglvel_y_raw": "0",
        "in_anglvel_z_raw": "0", "in_anglvel_scale": "0.001065",
        "in_accel_sampling_frequency": "25",
        "in_accel_sampling_frequency_available":
          "0.78125 1.5625 3.125 6.25 12.5 25 50 100 200 400 800 1600",
        "in_anglvel_sampling_frequency": "25",
        "in_anglvel_sampling_frequency_available": "25 50 100 200 400 800 1600 3200",
      ],
      scanElements: bmiScanElements, currentTrigger: "")
    try tree.addTrigger(index: 0, name: "bmi160-dev\(index)")
  }

  static func bmiLayout() -> IIOScanLayout {
    IIOScanLayout(
      bmiScanElements.map {
        .init(name: $0.name, index: $0.index, type: IIOScanType(parsing: $0.type)!)
      })
  }

  /// A bmp280 barometer with processed channels only (kPa and m°C), no buffer.
  static func bmp280(_ tree: IIOFakeTree, index: Int = 3) throws {
    try tree.addDevice(
      index: index, name: "bmp280",
      attributes: ["in_pressure_input": "101.325000000", "in_temp_input": "21540"])
  }

  /// A configuration for tests: automatic mode, quick recovery.
  static func configuration(_ mode: IIOConfiguration.Mode = .automatic) -> IIOConfiguration {
    var configuration = IIOConfiguration()
    configuration.mode = mode
    configuration.recoveryInterval = 0.02
    return configuration
  }

  /// A fake tree holding an mpu6050 as device 0, the start of most tests that then break it.
  static func mpu6050Tree() throws -> IIOFakeTree {
    let tree = try IIOFakeTree()
    try mpu6050(tree)
    return tree
  }

  /// A new collector subscribed to `source` at `rate` Hz, and its subscription (which the test
  /// cancels).
  static func collect(
    _ source: IIOSensorSource, rate: Double = 100
  ) -> (EventCollector, SourceSubscription) {
    let collector = EventCollector()
    return (collector, source.subscribe(requestedSampleRate: rate, collector.handler))
  }

  static func source(
    _ tree: IIOFakeTree, _ mode: IIOConfiguration.Mode = .automatic,
    system: IIOSystem = IIOSystem(), configuration: IIOConfiguration? = nil
  ) throws -> IIOSensorSource {
    let source = try XCTUnwrap(
      IIOSensorSource.discover(
        sysfsRoot: tree.sysfsRoot, devRoot: tree.devRoot,
        configuration: configuration ?? Fixtures.configuration(mode), system: system))
    source.warningHandler = { _ in }
    return source
  }
}

/// Asserts two vectors agree within `tolerance` per component (``assertComponentsClose``).
func assertClose(
  _ a: SIMD3<Double>?, _ b: SIMD3<Double>, tolerance: Double = 1e-9, _ message: String = "",
  file: StaticString = #filePath, line: UInt = #line
) {
  assertComponentsClose(a, b, tolerance: tolerance, message, file: file, line: line)
}
