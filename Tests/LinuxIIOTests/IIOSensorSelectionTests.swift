// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest
import _LinuxIIOTestSupport

@testable import LinuxIIO

/// Only the sensors some subscriber needs are read: other devices stay off, and a device with
/// several sensors enables only the needed channels.
final class IIOSensorSelectionTests: XCTestCase {
  /// Tolerance for scale × raw computed two ways in floating point.
  let tolerance = 1e-12

  /// A 2-in-1 with separate accelerometer, gyroscope and magnetometer devices: a pedometer-like
  /// subscriber starts only the accelerometer; a gyroscope subscriber adds that device, and its
  /// departure stops it again.
  func testDevicesNobodyNeedsAreNotStarted() throws {
    let tree = try IIOFakeTree()
    try Fixtures.hidHub(tree)
    let source = try Fixtures.source(tree, .polled)
    let pedometer = EventCollector()
    let subscription = source.subscribe(
      requestedSampleRate: 10, sensors: [.accelerometer, .barometer], pedometer.handler)
    XCTAssertTrue(pedometer.waitForSamples(2))
    XCTAssertEqual(source.readModes, ["accel_3d": .polled])
    XCTAssertEqual(source.activeSensors, [.accelerometer])
    XCTAssertTrue(
      pedometer.samples.allSatisfy {
        $0.accelerometer != nil && $0.gyroscope == nil && $0.magnetometer == nil
      })

    let gyroscope = EventCollector()
    let gyroscopeSubscription = source.subscribe(
      requestedSampleRate: 10, sensors: [.gyroscope], gyroscope.handler)
    XCTAssertTrue(
      gyroscope.wait { events in
        events.contains {
          if case .sample(let s) = $0 { return s.gyroscope != nil } else { return false }
        }
      })
    XCTAssertEqual(source.readModes, ["accel_3d": .polled, "gyro_3d": .polled])
    XCTAssertEqual(source.activeSensors, [.accelerometer, .gyroscope])

    gyroscopeSubscription.cancel()
    XCTAssertTrue(eventually { source.readModes == ["accel_3d": .polled] }, "\(source.readModes)")
    XCTAssertEqual(source.activeSensors, [.accelerometer])
    subscription.cancel()
    XCTAssertTrue(eventually { source.readModes.isEmpty && source.activeSensors.isEmpty })
  }

  /// An mpu6050 (accelerometer, gyroscope, temperature in one buffer): with only the accelerometer
  /// wanted, the gyroscope and temperature scan elements stay disabled and the shorter records
  /// decode.
  func testOnlyTheNeededChannelsOfADeviceAreEnabled() throws {
    let tree = try Fixtures.mpu6050Tree()
    let source = try Fixtures.source(tree, .buffered)
    let collector = EventCollector()
    let subscription = source.subscribe(
      requestedSampleRate: 60, sensors: [.accelerometer], collector.handler)
    let writer = try IIOFIFOWriter(path: tree.nodePath(0))
    XCTAssertEqual(tree.read(0, "buffer/enable"), "1")
    for element in Fixtures.mpuScanElements {
      let wanted = element.name.hasPrefix("in_accel") || element.name == "in_timestamp"
      XCTAssertEqual(
        tree.read(0, "scan_elements/\(element.name)_en"), wanted ? "1" : "0", element.name)
    }
    let layout = IIOScanLayout(
      Fixtures.mpuScanElements.filter { $0.name.hasPrefix("in_accel") || $0.name == "in_timestamp" }
        .map {
          .init(name: $0.name, index: $0.index, type: IIOScanType(parsing: $0.type)!)
        })
    writer.write(
      layout.pack([
        "in_accel_x": -16, "in_accel_y": 16384, "in_accel_z": 200, "in_timestamp": 5_000_000_000,
      ])
        + layout.pack([
          "in_accel_x": -16, "in_accel_y": 16384, "in_accel_z": 201, "in_timestamp": 5_010_000_000,
        ]))
    XCTAssertTrue(collector.waitForSamples(2))
    let samples = collector.samples
    XCTAssertEqual(samples.map(\.timestamp), [5.0, 5.01])
    XCTAssertEqual(samples[1].accelerometer!.y, 16384 * 0.000598, accuracy: tolerance)
    XCTAssertTrue(samples.allSatisfy { $0.gyroscope == nil && $0.temperature == nil })
    XCTAssertEqual(source.activeSensors, [.accelerometer])
    subscription.cancel()
    XCTAssertTrue(eventually { tree.read(0, "buffer/enable") == "0" }, "buffer disabled")
  }
}
