// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionRecognition
import MotionSensors
import OpenCoreMotion
import SourceComposition
import OpenUIDevice
import XCTest

/// The UIDevice stand-in: nesting, notifications and the async monitor, on simulated sources.
final class UIDeviceTests: XCTestCase {
  private func device(_ scenario: String, center: NotificationCenter = NotificationCenter()) throws -> UIDevice {
    let source = try SourceFactory.makeSource(.simulator(scenario: scenario, speed: .multiplier(10)))
    return UIDevice(motionManager: CMMotionManager(source: source), notificationCenter: center)
  }

  func testUnknownUntilGeneratingAndNestedCallsAreCounted() throws {
    let device = try device("portrait")
    XCTAssertEqual(device.orientation, .unknown)
    XCTAssertFalse(device.isGeneratingDeviceOrientationNotifications)
    device.beginGeneratingDeviceOrientationNotifications()
    device.beginGeneratingDeviceOrientationNotifications()
    XCTAssertTrue(device.isGeneratingDeviceOrientationNotifications)
    device.endGeneratingDeviceOrientationNotifications()
    XCTAssertTrue(device.isGeneratingDeviceOrientationNotifications, "one begin is still unmatched")
    device.endGeneratingDeviceOrientationNotifications()
    XCTAssertFalse(device.isGeneratingDeviceOrientationNotifications)
    XCTAssertEqual(device.orientation, .unknown)
    device.endGeneratingDeviceOrientationNotifications()  // unmatched: ignored
    XCTAssertFalse(device.isGeneratingDeviceOrientationNotifications)
  }

  func testNotificationIsPostedWithTheNewOrientation() throws {
    let center = NotificationCenter()
    let device = try device("landscapeLeft", center: center)
    let posted = expectation(forNotification: UIDevice.orientationDidChangeNotification, object: device, notificationCenter: center) {
      _ in device.orientation == .landscapeLeft
    }
    device.beginGeneratingDeviceOrientationNotifications()
    wait(for: [posted], timeout: 10)
    XCTAssertEqual(device.orientation.rawValue, 3)
    XCTAssertEqual(UIDevice.orientationDidChangeNotification.rawValue, "UIDeviceOrientationDidChangeNotification")
    device.endGeneratingDeviceOrientationNotifications()
    XCTAssertEqual(device.orientation, .unknown)
  }

  func testOrientationUpdatesStream() async throws {
    let device = try device("faceDown")
    var seen: [UIDeviceOrientation] = []
    for await orientation in device.orientationUpdates() {
      seen.append(orientation)
      if orientation == .faceDown { break }
    }
    XCTAssertEqual(seen, [.unknown, .faceDown])
    // Leaving the loop ended the stream, which ends the notifications it began.
    for _ in 0..<100 where device.isGeneratingDeviceOrientationNotifications { await Task.yield() }
    XCTAssertFalse(device.isGeneratingDeviceOrientationNotifications)
  }

  func testShakeEventsFromAManager() async throws {
    let source = try SourceFactory.makeSource(.simulator(scenario: "shake", speed: .multiplier(10)))
    let manager = CMMotionManager(source: source)
    var phases: [ShakeDetector.Phase] = []
    for try await event in manager.motionEvents(detectedBy: ShakeDetector()) {
      phases.append(event.phase)
    }
    // The scenario (1 s rest, 2 s shake at 4.5 Hz, 3 s rest) ends, and so does the sequence.
    XCTAssertEqual(phases, [.began, .ended])
  }

  func testKnockHandlerOnAnOperationQueue() throws {
    let source = try SourceFactory.makeSource(.simulator(scenario: "tap", speed: .multiplier(10)))
    let manager = CMMotionManager(source: source)
    let knocked = expectation(description: "knock on the left edge")
    let queue = OperationQueue()
    let subscription = manager.startMotionEventUpdates(detectedBy: TapDetector(), to: queue) { tap in
      XCTAssertEqual(tap.struckSide, .left)  // the scenario pushes along +x
      knocked.fulfill()
    }
    wait(for: [knocked], timeout: 10)
    subscription.cancel()
    XCTAssertTrue(subscription.isCancelled)
  }
}
