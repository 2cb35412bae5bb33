// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// `CMHeadphoneActivityManager` on Linux: code written for iOS 18 compiles (Apple's names, handler
/// shapes and raw values) and finds neither service available.
final class CMHeadphoneActivityManagerTests: XCTestCase {
  func testRawValuesAndHandlerShapesMatchApple() {
    XCTAssertEqual(CMHeadphoneActivityManager.Status.disconnected.rawValue, 0)
    XCTAssertEqual(CMHeadphoneActivityManager.Status.connected.rawValue, 1)
    XCTAssertNil(CMHeadphoneActivityManager.Status(rawValue: 2))
    let _: CMHeadphoneActivityManager.ActivityHandler = { (_: CMMotionActivity?, _: (any Error)?) in
    }
    let _: CMHeadphoneActivityManager.StatusHandler = {
      (_: CMHeadphoneActivityManager.Status, _: (any Error)?) in
    }
  }

  /// The iOS pattern: check availability, start status updates, wait for `.connected`, then start
  /// activity updates. Nothing is available, starting anyway queues nothing and calls nothing.
  func testNeitherServiceIsAvailableAndStartingHasNoEffect() {
    let manager = CMHeadphoneActivityManager()
    XCTAssertFalse(manager.isActivityAvailable)
    XCTAssertFalse(manager.isStatusAvailable)
    XCTAssertEqual(
      CMHeadphoneActivityManager.authorizationStatus(), CMAuthorizationStatus.current)

    let queue = OperationQueue()
    let calls = Locked(0)
    manager.startStatusUpdates(to: queue) { status, _ in
      calls.withLock { $0 += 1 }
      if status == .connected {
        manager.startActivityUpdates(to: queue) { _, _ in calls.withLock { $0 += 1 } }
      }
    }
    manager.startActivityUpdates(to: queue) { _, _ in calls.withLock { $0 += 1 } }
    XCTAssertFalse(manager.isStatusActive)
    XCTAssertFalse(manager.isActivityActive)
    XCTAssertEqual(queue.operationCount, 0)
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(calls.withLock { $0 }, 0)
    manager.stopActivityUpdates()
    manager.stopStatusUpdates()
    XCTAssertFalse(manager.isStatusActive)
  }
}
