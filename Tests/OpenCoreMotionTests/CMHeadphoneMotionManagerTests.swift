// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// `CMHeadphoneMotionManager` on Linux: head-tracking code compiles (Apple's shapes, a delegate
/// that implements only one of its optional methods) and finds no headphones.
final class CMHeadphoneMotionManagerTests: XCTestCase {
  /// A delegate written as iOS apps write it: only the method it needs.
  private final class ConnectionWatcher: CMHeadphoneMotionManagerDelegate {
    var connections = 0
    func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager) {
      connections += 1
    }
  }

  func testNoHeadphonesConnectAndStartingHasNoEffect() {
    let manager = CMHeadphoneMotionManager()
    let watcher = ConnectionWatcher()
    manager.delegate = watcher
    XCTAssertFalse(manager.isDeviceMotionAvailable)
    XCTAssertEqual(CMHeadphoneMotionManager.authorizationStatus(), CMAuthorizationStatus.current)

    let queue = OperationQueue()
    let calls = Locked(0)
    let handler: CMHeadphoneMotionManager.DeviceMotionHandler = { _, _ in
      calls.withLock { $0 += 1 }
    }
    manager.startDeviceMotionUpdates(to: queue, withHandler: handler)
    manager.startDeviceMotionUpdates()
    XCTAssertFalse(manager.isDeviceMotionActive)
    XCTAssertNil(manager.deviceMotion)
    // Nothing was queued: the queue holds no operation of the manager's.
    XCTAssertEqual(queue.operationCount, 0)
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(calls.withLock { $0 }, 0)
    manager.stopDeviceMotionUpdates()

    manager.startConnectionStatusUpdates()
    XCTAssertTrue(manager.isConnectionStatusActive)
    manager.stopConnectionStatusUpdates()
    XCTAssertFalse(manager.isConnectionStatusActive)
    XCTAssertEqual(watcher.connections, 0)
    // The delegate is weak, as Apple declares it: held while someone else holds it, gone after.
    do {
      let held = ConnectionWatcher()
      manager.delegate = held
      withExtendedLifetime(held) { XCTAssertNotNil(manager.delegate) }
    }
    XCTAssertNil(manager.delegate)
  }
}
