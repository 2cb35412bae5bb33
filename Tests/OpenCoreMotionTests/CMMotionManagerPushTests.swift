// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// Push delivery: pacing by timestamps, the handler's queue, stop semantics, clamping.
final class CMMotionManagerPushTests: XCTestCase {
  func testAccelerometerIntervalIsPacedBySampleTimestamps() {
    let clock = VirtualClock()
    let player = Synthetic.player(Synthetic.still(.identity, count: 300), clock: clock)
    let manager = CMMotionManager(source: player)
    manager.accelerometerUpdateInterval = 0.05
    let queue = makeSerialQueue()
    let received = Collector<CMAccelerometerData>()
    manager.startAccelerometerUpdates(to: queue) { data, error in
      XCTAssertNil(error)
      if let data { received.append(data) }
    }
    clock.advance(by: 2.99)
    queue.waitUntilAllOperationsAreFinished()
    manager.stopAccelerometerUpdates()

    let stamps = received.all.map(\.timestamp)
    // 300 samples over 2.99 s at one delivery per 0.05 s: samples 0, 5, …, 295.
    XCTAssertEqual(stamps.count, 60)
    for (a, b) in zip(stamps, stamps.dropFirst()) {
      // 5 %: the tolerance the pacing contract promises.
      XCTAssertEqual(b - a, 0.05, accuracy: 0.05 * 0.05)
    }
  }

  func testIntervalThatIsNotAMultipleOfTheSourcePeriodKeepsTheAverage() {
    let clock = VirtualClock()
    let player = Synthetic.player(Synthetic.still(.identity, count: 1001), clock: clock)
    let manager = CMMotionManager(source: player)
    manager.gyroUpdateInterval = 0.025
    let queue = makeSerialQueue()
    let received = Collector<CMGyroData>()
    manager.startGyroUpdates(to: queue) { data, _ in data.map(received.append) }
    clock.advance(by: 10)
    queue.waitUntilAllOperationsAreFinished()
    manager.stopGyroUpdates()

    let stamps = received.all.map(\.timestamp)
    XCTAssertEqual(stamps.count, 401)
    let average = (stamps.last! - stamps.first!) / Double(stamps.count - 1)
    // Rounding of the sample times only (1e-9 s per sample): the average is exact.
    XCTAssertEqual(average, 0.025, accuracy: 1e-6)
    for (a, b) in zip(stamps, stamps.dropFirst()) {
      // Every gap is one of the two nearest whole source periods (20 or 30 ms).
      XCTAssertTrue(abs(b - a - 0.02) < 1e-6 || abs(b - a - 0.03) < 1e-6, "gap \(b - a)")
    }
  }

  func testHandlersRunOnTheGivenQueue() {
    let clock = VirtualClock()
    let player = Synthetic.player(Synthetic.still(.identity, count: 50), clock: clock)
    let manager = CMMotionManager(source: player)
    let queue = makeSerialQueue("handler queue")
    let onQueue = Collector<Bool>()
    manager.startAccelerometerUpdates(to: queue) { _, _ in
      onQueue.append(OperationQueue.current === queue)
    }
    manager.startGyroUpdates(to: queue) { _, _ in onQueue.append(OperationQueue.current === queue) }
    manager.startMagnetometerUpdates(to: queue) { _, _ in
      onQueue.append(OperationQueue.current === queue)
    }
    manager.startDeviceMotionUpdates(to: queue) { _, _ in
      onQueue.append(OperationQueue.current === queue)
    }
    clock.advance(by: 0.45)
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(onQueue.count, 4 * 46)
    XCTAssertTrue(onQueue.all.allSatisfy { $0 })
  }

  func testNoHandlerRunsAfterStopEvenWithOperationsQueued() {
    let clock = VirtualClock()
    let player = Synthetic.player(Synthetic.still(.identity, count: 100), clock: clock)
    let manager = CMMotionManager(source: player)
    let queue = makeSerialQueue()
    queue.isSuspended = true
    let accelerometerCalls = Collector<Double>()
    let deviceMotionCalls = Collector<Double>()
    manager.startAccelerometerUpdates(to: queue) { data, _ in
      accelerometerCalls.append(data?.timestamp ?? -1)
    }
    manager.startDeviceMotionUpdates(to: queue) { motion, _ in
      deviceMotionCalls.append(motion?.timestamp ?? -1)
    }
    clock.advance(by: 0.2)
    XCTAssertEqual(queue.operationCount, 2 * 21, "operations are queued, not yet run")
    manager.stopAccelerometerUpdates()
    manager.stopDeviceMotionUpdates()
    XCTAssertFalse(manager.isAccelerometerActive)
    XCTAssertFalse(manager.isDeviceMotionActive)
    queue.isSuspended = false
    queue.waitUntilAllOperationsAreFinished()
    clock.advance(by: 0.2)
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(accelerometerCalls.count, 0)
    XCTAssertEqual(deviceMotionCalls.count, 0)
  }

  /// The package-only delivery-thread handlers (the dashboard's): paced like queued ones, called
  /// before the source moves on (no queue in between), and ended by stop, also from inside.
  func testDeliveryThreadHandlersArePacedAndEndWithStop() {
    let clock = VirtualClock()
    let player = Synthetic.player(Synthetic.still(.identity, count: 300), clock: clock)
    let manager = CMMotionManager(source: player)
    manager.deviceMotionUpdateInterval = 0.05
    let motions = Collector<Double>()
    let accelerations = Collector<Double>()
    manager.startDeviceMotionUpdates(
      using: .xArbitraryZVertical,
      onDeliveryThread: { motion, error in
        XCTAssertNil(error)
        if let motion { motions.append(motion.timestamp) }
      })
    manager.accelerometerUpdateInterval = 0
    manager.startAccelerometerUpdates(onDeliveryThread: { [unowned manager] data, _ in
      accelerations.append(data?.timestamp ?? -1)
      if accelerations.count == 7 { manager.stopAccelerometerUpdates() }
    })
    clock.advance(by: 0.99)
    // Already delivered when the clock's advance returns: nothing was queued.
    XCTAssertEqual(motions.count, 20)
    XCTAssertEqual(accelerations.count, 7, "stopped from inside its own handler")
    manager.stopDeviceMotionUpdates()
    clock.advance(by: 1)
    XCTAssertEqual(motions.count, 20, "no call after stop returned")
    XCTAssertEqual(accelerations.count, 7)
    for (a, b) in zip(motions.all, motions.all.dropFirst()) {
      // 5 %: the tolerance the pacing contract promises.
      XCTAssertEqual(b - a, 0.05, accuracy: 0.05 * 0.05)
    }
  }

  /// Each stream asks its source for its own sensors only, so that a source that can switch
  /// sensors off (IIO, the daemon) keeps the rest off: an accelerometer stream does not run the
  /// gyroscope, and device motion does not run the barometer.
  func testStreamsAskTheSourceForTheirOwnSensorsOnly() {
    let clock = VirtualClock()
    let source = SensorRequestRecorder(
      Synthetic.player(Synthetic.still(.identity, count: 50), clock: clock))
    let manager = CMMotionManager(source: source)
    let queue = makeSerialQueue()
    manager.startAccelerometerUpdates(to: queue) { _, _ in }
    manager.startGyroUpdates(to: queue) { _, _ in }
    manager.startMagnetometerUpdates(to: queue) { _, _ in }
    manager.startDeviceMotionUpdates(to: queue) { _, _ in }
    clock.advance(by: 0.1)
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(
      source.requests, [[.accelerometer], [.gyroscope], [.magnetometer], .nineAxis],
      "one request per stream, each for its own sensors")
    manager.stopAccelerometerUpdates()
    manager.stopGyroUpdates()
    manager.stopMagnetometerUpdates()
    manager.stopDeviceMotionUpdates()
  }

  func testStopFromInsideTheHandlerEndsDelivery() {
    let clock = VirtualClock()
    let player = Synthetic.player(Synthetic.still(.identity, count: 100), clock: clock)
    let manager = CMMotionManager(source: player)
    let queue = makeSerialQueue()
    queue.isSuspended = true
    let calls = Collector<Double>()
    manager.startAccelerometerUpdates(to: queue) { [unowned manager] data, _ in
      calls.append(data!.timestamp)
      if calls.count == 3 { manager.stopAccelerometerUpdates() }
    }
    clock.advance(by: 0.5)
    queue.isSuspended = false
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(calls.count, 3)
  }

  func testRestartingWithANewHandlerDropsTheOldOne() {
    let clock = VirtualClock()
    let player = Synthetic.player(Synthetic.still(.identity, count: 100), clock: clock)
    let manager = CMMotionManager(source: player)
    let queue = makeSerialQueue()
    queue.isSuspended = true
    let first = Collector<Double>()
    let second = Collector<Double>()
    manager.startGyroUpdates(to: queue) { data, _ in first.append(data!.timestamp) }
    clock.advance(by: 0.1)
    manager.startGyroUpdates(to: queue) { data, _ in second.append(data!.timestamp) }
    clock.advance(by: 0.1)
    queue.isSuspended = false
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(first.count, 0)
    // The player pauses while nobody listens and resumes with the next sample: 0.11 … 0.21 s.
    XCTAssertEqual(second.count, 11)
    XCTAssertTrue(manager.isGyroActive)
  }

  func testPullPropertiesHoldTheLatestSample() {
    let clock = VirtualClock()
    let player = Synthetic.player(Synthetic.still(Synthetic.portrait, count: 100), clock: clock)
    let manager = CMMotionManager(source: player)
    XCTAssertNil(manager.accelerometerData)
    XCTAssertNil(manager.deviceMotion)
    manager.startAccelerometerUpdates()
    manager.startGyroUpdates()
    manager.startMagnetometerUpdates()
    manager.startDeviceMotionUpdates()
    XCTAssertTrue(manager.isAccelerometerActive && manager.isGyroActive)
    XCTAssertTrue(manager.isMagnetometerActive && manager.isDeviceMotionActive)
    clock.advance(by: 0.5)
    let expected = 1000 + 0.5
    XCTAssertEqual(manager.accelerometerData?.timestamp ?? 0, expected, accuracy: 1e-9)
    XCTAssertEqual(manager.gyroData?.timestamp ?? 0, expected, accuracy: 1e-9)
    XCTAssertEqual(manager.magnetometerData?.timestamp ?? 0, expected, accuracy: 1e-9)
    XCTAssertEqual(manager.deviceMotion?.timestamp ?? 0, expected, accuracy: 1e-9)
    XCTAssertVector(
      manager.accelerometerData!.acceleration.vector, SIMD3(0, -1, 0), accuracy: 1e-12)
    let field = manager.magnetometerData!.magneticField
    XCTAssertVector(
      field.vector, Synthetic.portrait.conjugate.act(on: Synthetic.earthField),
      accuracy: 1e-9)

    manager.stopAccelerometerUpdates()
    clock.advance(by: 0.2)
    // Stopped: the value stays at the last sample before the stop.
    XCTAssertEqual(manager.accelerometerData?.timestamp ?? 0, expected, accuracy: 1e-9)
    XCTAssertEqual(manager.gyroData?.timestamp ?? 0, expected + 0.2, accuracy: 1e-9)
  }

  func testIntervalsAreClampedToTheSourceRange() {
    let clock = VirtualClock()
    let player = Synthetic.player(
      Synthetic.still(.identity, rate: 50, count: 10), rate: 50, clock: clock)
    let manager = CMMotionManager(source: player)
    // Default 0.01 s is faster than 50 Hz: clamped to the source's 0.02 s.
    XCTAssertEqual(manager.accelerometerUpdateInterval, 0.02, accuracy: 1e-12)
    manager.gyroUpdateInterval = 0
    XCTAssertEqual(manager.gyroUpdateInterval, 0.02, accuracy: 1e-12)
    manager.magnetometerUpdateInterval = 10
    XCTAssertEqual(manager.magnetometerUpdateInterval, 1)
    manager.deviceMotionUpdateInterval = 0.1
    XCTAssertEqual(manager.deviceMotionUpdateInterval, 0.1)
    manager.deviceMotionUpdateInterval = Double.nan
    XCTAssertEqual(manager.deviceMotionUpdateInterval, 0.1, "NaN is ignored")
    manager.deviceMotionUpdateInterval = -Double.infinity
    XCTAssertEqual(manager.deviceMotionUpdateInterval, 0.02, accuracy: 1e-12)
    manager.accelerometerUpdateInterval = Double.infinity
    XCTAssertEqual(manager.accelerometerUpdateInterval, 1, "the longest interval")
    manager.gyroUpdateInterval = -1
    XCTAssertEqual(manager.gyroUpdateInterval, 0.02, accuracy: 1e-12)

    let fast = CMMotionManager(
      source: Synthetic.player([], rate: 200, clock: clock))
    XCTAssertEqual(fast.accelerometerUpdateInterval, 0.01, accuracy: 1e-12, "default 100 Hz")
  }

  func testMissingMagnetometerIsUnavailableAndStartDoesNothing() {
    let clock = VirtualClock()
    let samples = Synthetic.still(.identity, count: 50, sensors: .inertial)
    let source = CountingSource(Synthetic.player(samples, sensors: .inertial, clock: clock))
    let manager = CMMotionManager(source: source)
    XCTAssertTrue(manager.isAccelerometerAvailable)
    XCTAssertTrue(manager.isGyroAvailable)
    XCTAssertFalse(manager.isMagnetometerAvailable)
    XCTAssertTrue(manager.isDeviceMotionAvailable)
    XCTAssertEqual(manager.supportedAttitudeReferenceFrames, .xArbitraryZVertical)

    let queue = makeSerialQueue()
    let calls = Collector<Bool>()
    manager.startMagnetometerUpdates(to: queue) { _, _ in calls.append(true) }
    manager.startMagnetometerUpdates()
    XCTAssertFalse(manager.isMagnetometerActive)
    XCTAssertEqual(source.activeSubscriptions, 0)
    clock.advance(by: 0.5)
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(calls.count, 0)
    XCTAssertNil(manager.magnetometerData)
  }

  func testNoSensorsMeansNothingIsAvailable() {
    let manager = CMMotionManager(source: EmptySensorSource())
    XCTAssertFalse(manager.isAccelerometerAvailable)
    XCTAssertFalse(manager.isGyroAvailable)
    XCTAssertFalse(manager.isMagnetometerAvailable)
    XCTAssertFalse(manager.isDeviceMotionAvailable)
    XCTAssertEqual(manager.supportedAttitudeReferenceFrames, [])
    manager.startDeviceMotionUpdates(to: makeSerialQueue()) { _, _ in XCTFail("no device motion") }
    manager.startAccelerometerUpdates()
    XCTAssertFalse(manager.isDeviceMotionActive)
    XCTAssertFalse(manager.isAccelerometerActive)
  }

  func testAccelerometerWithoutGyroscopeHasNoDeviceMotion() {
    let clock = VirtualClock()
    let samples = Synthetic.still(.identity, count: 5, sensors: .accelerometer)
    let manager = CMMotionManager(
      source: Synthetic.player(samples, sensors: .accelerometer, clock: clock))
    XCTAssertTrue(manager.isAccelerometerAvailable)
    XCTAssertFalse(manager.isDeviceMotionAvailable)
    XCTAssertEqual(manager.supportedAttitudeReferenceFrames, [])
  }

  func testSourceFailureIsDeliveredAsCMError() {
    let clock = VirtualClock()
    let manager = CMMotionManager(source: StreamPlayer(FailingStream(), pacing: .virtual(clock)))
    let queue = makeSerialQueue()
    let errors = Collector<NSError>()
    let samples = Collector<Double>()
    manager.startAccelerometerUpdates(to: queue) { data, error in
      if let data { samples.append(data.timestamp) }
      if let error { errors.append(error as NSError) }
    }
    clock.advance(by: 1)
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(samples.count, 3)
    XCTAssertEqual(errors.count, 1)
    XCTAssertEqual(errors.all.first?.domain, CMErrorDomain)
    XCTAssertEqual(errors.all.first?.code, Int(CMErrorUnknown.rawValue))
  }
}

/// A source that passes everything to `inner` and notes the sensors each subscription asks for.
private final class SensorRequestRecorder: SensorSource {
  private let inner: any SensorSource
  private let recorded = Locked<[SensorSet]>([])

  init(_ inner: any SensorSource) { self.inner = inner }

  var requests: [SensorSet] { recorded.withLock { $0 } }
  var name: String { inner.name }
  var availableSensors: SensorSet { inner.availableSensors }
  var supportedSampleRates: ClosedRange<Double> { inner.supportedSampleRates }

  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    subscribe(requestedSampleRate: requestedSampleRate, sensors: availableSensors, handler)
  }

  func subscribe(
    requestedSampleRate: Double, sensors: SensorSet,
    _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    recorded.withLock { $0.append(sensors) }
    return inner.subscribe(requestedSampleRate: requestedSampleRate, sensors: sensors, handler)
  }
}

extension CMMotionManagerPushTests {
  /// An interval set from inside a handler (an app that slows down once it has what it needs)
  /// takes effect at once, from a queued handler and from a delivery-thread one: the run
  /// subscribes again at the new rate from inside the delivery, which must neither stall it nor
  /// leave the old rate's subscription delivering.
  func testAnIntervalSetFromInsideAHandlerTakesEffect() {
    for onDeliveryThread in [false, true] {
      let clock = VirtualClock()
      let player = Synthetic.player(Synthetic.still(.identity, count: 300), clock: clock)
      let manager = CMMotionManager(source: player)
      manager.accelerometerUpdateInterval = 0.01
      let stamps = Collector<Double>()
      let handler: CMAccelerometerHandler = { [unowned manager] data, _ in
        stamps.append(data!.timestamp)
        if stamps.count == 10 { manager.accelerometerUpdateInterval = 0.1 }
      }
      let queue = makeSerialQueue()
      if onDeliveryThread {
        manager.startAccelerometerUpdates(onDeliveryThread: handler)
      } else {
        manager.startAccelerometerUpdates(to: queue, withHandler: handler)
      }
      // On a thread of its own, so that a deadlock fails the test instead of hanging the suite.
      let advanced = expectation(description: "the clock's advance returned")
      Thread {
        for _ in 0..<200 {
          clock.advance(by: 0.01)
          queue.waitUntilAllOperationsAreFinished()
        }
        advanced.fulfill()
      }.start()
      wait(for: [advanced], timeout: 60)
      manager.stopAccelerometerUpdates()
      let all = stamps.all
      XCTAssertGreaterThan(all.count, 11, "delivery thread \(onDeliveryThread): \(all)")
      // 10 updates 0.01 s apart, then one every 0.1 s over the rest of the 2 s.
      XCTAssertEqual(Double(all.count), 10 + 19, accuracy: 2, "delivery thread \(onDeliveryThread)")
      for (a, b) in zip(all.dropFirst(10), all.dropFirst(11)) {
        // 5 %: the tolerance the pacing contract promises.
        XCTAssertEqual(b - a, 0.1, accuracy: 0.1 * 0.05, "delivery thread \(onDeliveryThread)")
      }
    }
  }
}

/// A source that is away: it tells each subscriber so at once, inside `subscribe` (as a
/// `DaemonSource` does while the daemon restarts), and keeps the rates it is asked for.
final class AwaySource: SensorSource, @unchecked Sendable {
  // Sendable: `rates` and `active` are locked; the rest is immutable.
  let name = "away"
  let availableSensors: SensorSet = .inertial
  let supportedSampleRates: ClosedRange<Double> = 1...100
  let rates = Collector<Double>()
  private let active = Locked(0)
  var activeSubscriptions: Int { active.withLock { $0 } }

  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    rates.append(requestedSampleRate)
    active.withLock { $0 += 1 }
    handler(.failure(SourceFailure(.disconnected, "away: back soon", isFatal: false)))
    return SourceSubscription { [active] in active.withLock { $0 -= 1 } }
  }
}

extension CMMotionManagerPushTests {
  /// A delivery-thread handler called inside the source's `subscribe` (a source that is away says
  /// so at once) may set its interval: the run then subscribes again at the new rate. The
  /// resubscription held a lock while it subscribed, and the handler's interval came back to it
  /// on the same thread and waited for that lock for ever: the start never returned.
  func testAHandlerCalledInsideSubscribeMaySetTheInterval() {
    let source = AwaySource()
    // Used by the test's thread while this one waits for it (and not after a timeout).
    nonisolated(unsafe) let manager = CMMotionManager(source: source)
    manager.accelerometerUpdateInterval = 0.01
    let errors = Collector<String>()
    let started = expectation(description: "the start returned")
    // On a thread of its own, so that a deadlock fails the test instead of hanging the suite.
    Thread {
      manager.startAccelerometerUpdates(onDeliveryThread: { [unowned manager] _, error in
        guard let error else { return }
        errors.append("\(error)")
        if errors.count == 1 { manager.accelerometerUpdateInterval = 0.5 }
      })
      started.fulfill()
    }.start()
    guard XCTWaiter().wait(for: [started], timeout: 60) == .completed else {
      // The stuck thread holds the manager (and its handler lock): leave both alone.
      return XCTFail("the start did not return (\(errors.count) errors delivered)")
    }
    XCTAssertEqual(source.rates.all, [1 / 0.01, 1 / 0.5])
    XCTAssertEqual(source.activeSubscriptions, 1, "only the 2 Hz subscription is left")
    XCTAssertEqual(errors.count, 2)
    manager.stopAccelerometerUpdates()
    XCTAssertEqual(source.activeSubscriptions, 0)
  }
}
