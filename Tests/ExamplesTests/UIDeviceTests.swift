// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionRecognition
import MotionSensors
import OpenCoreMotion
import OpenUIDevice
import SourceComposition
import XCTest
import _MotionTestSupport

/// The UIDevice stand-in: nesting, notifications and the async monitor, on simulated sources.
final class UIDeviceTests: XCTestCase {
  private func device(
    _ scenario: String, center: NotificationCenter = NotificationCenter()
  ) throws -> UIDevice {
    let source = try SourceFactory.makeSource(
      .simulator(scenario: scenario, speed: .multiplier(10)))
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

  /// Begins and ends from many threads at once (streams that end on a background queue while
  /// others begin): the sensors run exactly while a begin is unmatched. Deciding under the lock
  /// and starting or stopping after it let a stop land after a start, or the reverse. That
  /// interleaving is rare and this test does not force it (it passed with the old code too): it
  /// guards the invariant, and that the serialised start and stop neither deadlock nor lose a
  /// change.
  func testBeginsAndEndsFromManyThreadsLeaveTheSensorsMatchingTheCount() throws {
    let device = try device("portrait")
    for round in 0..<5 {
      DispatchQueue.concurrentPerform(iterations: 64) { _ in
        device.beginGeneratingDeviceOrientationNotifications()
        device.endGeneratingDeviceOrientationNotifications()
      }
      XCTAssertFalse(device.isGeneratingDeviceOrientationNotifications)
      XCTAssertFalse(device.motionManager.isDeviceMotionActive, "round \(round): running unasked")
      device.beginGeneratingDeviceOrientationNotifications()
      XCTAssertTrue(device.motionManager.isDeviceMotionActive, "round \(round): not running")
      device.endGeneratingDeviceOrientationNotifications()
    }
  }

  func testNotificationIsPostedWithTheNewOrientation() throws {
    let center = NotificationCenter()
    let device = try device("landscapeLeft", center: center)
    let posted = expectation(
      forNotification: UIDevice.orientationDidChangeNotification, object: device,
      notificationCenter: center
    ) {
      _ in device.orientation == .landscapeLeft
    }
    device.beginGeneratingDeviceOrientationNotifications()
    wait(for: [posted], timeout: 10)
    XCTAssertEqual(device.orientation.rawValue, 3)
    XCTAssertEqual(
      UIDevice.orientationDidChangeNotification.rawValue, "UIDeviceOrientationDidChangeNotification"
    )
    device.endGeneratingDeviceOrientationNotifications()
    XCTAssertEqual(device.orientation, .unknown)
  }

  func testOrientationUpdatesStream() async throws {
    let device = try device("faceDown")
    // The sequence lives in the closure only, so that it is gone when the loop is left.
    let seen = try await withDeadline(seconds: 60, "the face-down orientation") {
      [updates = device.orientationUpdates()] in
      var seen: [UIDeviceOrientation] = []
      for await orientation in updates {
        seen.append(orientation)
        if orientation == .faceDown { break }
      }
      return seen
    }
    XCTAssertEqual(seen, [.unknown, .faceDown])
    // Leaving the loop and dropping the sequence ended the stream, which ends the notifications it
    // began (once the task that ran the loop has been released: allow 5 s).
    for _ in 0..<500 where device.isGeneratingDeviceOrientationNotifications {
      try await Task.sleep(for: .milliseconds(10))
    }
    XCTAssertFalse(device.isGeneratingDeviceOrientationNotifications)
  }

  func testShakeEventsFromAManager() async throws {
    let source = try SourceFactory.makeSource(.simulator(scenario: "shake", speed: .multiplier(10)))
    let manager = CMMotionManager(source: source)
    let events = manager.motionEvents(detectedBy: ShakeDetector())
    let phases = try await withDeadline(seconds: 60, "the end of the shake scenario") {
      var phases: [ShakeDetector.Phase] = []
      for try await event in events { phases.append(event.phase) }
      return phases
    }
    // The scenario (1 s rest, 2 s shake at 4.5 Hz, 3 s rest) ends, and so does the sequence.
    XCTAssertEqual(phases, [.began, .ended])
  }

  func testKnockHandlerOnAnOperationQueue() throws {
    let source = try SourceFactory.makeSource(.simulator(scenario: "tap", speed: .multiplier(10)))
    let manager = CMMotionManager(source: source)
    let knocked = expectation(description: "knock on the left edge")
    let queue = OperationQueue()
    let subscription = manager.startMotionEventUpdates(detectedBy: TapDetector(), to: queue) {
      tap in
      XCTAssertEqual(tap.struckSide, .left)  // the scenario pushes along +x
      knocked.fulfill()
    }
    wait(for: [knocked], timeout: 10)
    subscription.cancel()
    XCTAssertTrue(subscription.isCancelled)
  }
}
