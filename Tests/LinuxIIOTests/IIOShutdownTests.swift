// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest
import _LinuxIIOTestSupport

@testable import LinuxIIO

/// A program that cancels its subscriptions and exits at once used to leave the buffer enabled
/// (the reader thread had not got to restoring it); `waitForReadersToStop` closes that window.
final class IIOShutdownTests: XCTestCase {
  func testWaitForReadersToStopReturnsWithTheDeviceRestored() throws {
    let tree = try Fixtures.mpu6050Tree()
    let source = try Fixtures.source(tree, .buffered, system: FaultInjectingSystem())
    let (events, subscription) = Fixtures.collect(source)
    let writer = try IIOFIFOWriter(path: tree.nodePath(0))
    writer.write(Fixtures.mpuLayout().pack(["in_accel_z": 1, "in_timestamp": 1]))
    XCTAssertTrue(events.waitForSamples(1))
    XCTAssertEqual(tree.read(0, "buffer/enable"), "1")
    subscription.cancel()
    // No polling here: when the wait returns, the restore has happened.
    XCTAssertTrue(IIOSensorSource.waitForReadersToStop(timeout: 5))
    XCTAssertEqual(tree.read(0, "buffer/enable"), "0", "buffer disabled before the wait returned")
    XCTAssertEqual(IIOSensorSource.runningReaders.withLock { $0 }, 0)
  }
}
