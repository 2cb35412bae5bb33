// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// A source the test drives by hand whose subscriptions from the `held`-th on wait inside
/// `subscribe`, once their handler is registered, until ``open()``: as a `DaemonSource` holds
/// its caller for seconds while the daemon is away (it retries the connection), with the
/// subscription it is making already in place. `emit` delivers to every registered handler on
/// the caller's thread.
final class HeldSubscribeSource: SensorSource, @unchecked Sendable {
  // Sendable: `handlers` is locked, the gate is an NSCondition's, the rest is immutable.
  let name = "held"
  let availableSensors: SensorSet = .inertial
  let supportedSampleRates: ClosedRange<Double> = 1...100
  private let held: Int
  private let handlers = Locked<(made: Int, live: [Int: @Sendable (SourceEvent) -> Void])>(
    (0, [:]))
  private let gate = NSCondition()
  private var isHolding = false
  private var isOpen = false

  init(holdingFromSubscription held: Int) { self.held = held }

  /// Subscriptions not cancelled yet.
  var liveSubscriptions: Int { handlers.withLock { $0.live.count } }

  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    let number = handlers.withLock { h -> Int in
      h.made += 1
      h.live[h.made] = handler
      return h.made
    }
    if number >= held {
      gate.lock()
      isHolding = true
      gate.broadcast()
      while !isOpen { gate.wait() }
      gate.unlock()
    }
    return SourceSubscription { [handlers] in _ = handlers.withLock { $0.live[number] = nil } }
  }

  /// Waits until a subscription is held, for at most `seconds`; returns whether one is.
  func waitUntilHeld(seconds: Double) -> Bool {
    gate.lock()
    defer { gate.unlock() }
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !isHolding, gate.wait(until: deadline) {}
    return isHolding
  }

  /// Lets the held subscription return, and any later one pass.
  func open() {
    gate.lock()
    isOpen = true
    gate.broadcast()
    gate.unlock()
  }

  func emit(_ event: SourceEvent) {
    for handler in handlers.withLock({ Array($0.live.values) }) { handler(event) }
  }
}

/// A run that subscribes again (its update interval changed) holds two subscriptions for a
/// moment: the new one is made before the old one is cancelled.
final class CMMotionManagerResubscriptionTests: XCTestCase {
  /// A source failure while both subscriptions are in place reaches the handler once, as a
  /// sample both deliver does. Each subscription passed it on: the handler saw it twice.
  func testAFailureDuringAResubscriptionReachesTheHandlerOnce() {
    let source = HeldSubscribeSource(holdingFromSubscription: 2)
    // Used by the test's thread while this one waits for it (and not after a timeout).
    nonisolated(unsafe) let manager = CMMotionManager(source: source)
    manager.accelerometerUpdateInterval = 0.01
    let queue = makeSerialQueue()
    let errors = Collector<String>()
    manager.startAccelerometerUpdates(to: queue) { _, error in
      if let error { errors.append("\(error)") }
    }
    defer {
      source.open()
      manager.stopAccelerometerUpdates()
    }
    let changed = DispatchSemaphore(value: 0)
    Thread {
      manager.accelerometerUpdateInterval = 0.5
      changed.signal()
    }.start()
    guard source.waitUntilHeld(seconds: 60) else { return XCTFail("no second subscription") }
    XCTAssertEqual(source.liveSubscriptions, 2, "the old subscription and the one being made")
    let failure = SourceFailure(.malformedData, "one bad message", isFatal: false)
    source.emit(.failure(failure))
    source.open()
    XCTAssertEqual(changed.wait(timeout: .now() + 60), .success, "the setter did not return")
    XCTAssertEqual(source.liveSubscriptions, 1)
    // The same failure again, from the one subscription left: a new failure, passed on too.
    source.emit(.failure(failure))
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(errors.count, 2, "\(errors.all)")
  }

  /// A stop from another thread returns while a queued handler's interval change is still
  /// subscribing (a daemon that is away holds `subscribe` for 2 to 4 s), and no handler runs
  /// after it. The handler subscribed on its own thread while it held the lock that a stop takes
  /// to wait out a handler in progress: the stop waited for the source.
  func testAStopDoesNotWaitForAHandlersResubscription() {
    let source = HeldSubscribeSource(holdingFromSubscription: 2)
    // Used by the test's thread while this one waits for it (and not after a timeout).
    nonisolated(unsafe) let manager = CMMotionManager(source: source)
    manager.accelerometerUpdateInterval = 0.01
    let queue = makeSerialQueue()
    let calls = Collector<Double>()
    manager.startAccelerometerUpdates(to: queue) { [unowned manager] data, _ in
      calls.append(data?.timestamp ?? -1)
      if calls.count == 1 { manager.accelerometerUpdateInterval = 0.5 }
    }
    defer { source.open() }
    source.emit(Self.sample(at: 1000))
    guard source.waitUntilHeld(seconds: 60) else { return XCTFail("no second subscription") }

    let stopped = DispatchSemaphore(value: 0)
    Thread {
      manager.stopAccelerometerUpdates()
      stopped.signal()
    }.start()
    // A failure bound: the stop takes microseconds.
    let result = stopped.wait(timeout: .now() + 20)
    source.open()
    XCTAssertEqual(result, .success, "the stop waited for the handler's subscription")
    if result != .success {
      XCTAssertEqual(stopped.wait(timeout: .now() + 60), .success, "the stop never returned")
    }
    source.emit(Self.sample(at: 1001))
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(calls.all, [1000], "a handler ran after the stop")
    // The subscription made for the stopped run is cancelled as soon as it is made.
    let deadline = Date(timeIntervalSinceNow: 60)
    while source.liveSubscriptions > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    XCTAssertEqual(source.liveSubscriptions, 0)
  }

  private static func sample(at timestamp: Double) -> SourceEvent {
    .sample(MotionSample(timestamp: timestamp, accelerometer: SIMD3(0, 0, 9.81)))
  }
}
