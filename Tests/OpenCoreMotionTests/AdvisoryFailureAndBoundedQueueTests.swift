// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest

@testable import OpenCoreMotion

/// A source that sends an advisory failure between samples, like a phone receiver that got one
/// malformed POST. Delivery is synchronous in `emit`, on the caller's thread. Its sensors can be
/// changed while it runs (``drop(_:)``), as a phone stream's are when it learns there is no
/// gyroscope.
final class ScriptedSource: SensorSource, @unchecked Sendable {
  let name = "scripted"
  let supportedSampleRates: ClosedRange<Double> = 1...100
  // Protected by its lock.
  private let sensors: Locked<SensorSet>
  private let handlers = Locked<[UInt64: @Sendable (SourceEvent) -> Void]>([:])
  private let nextID = Locked<UInt64>(0)

  init(sensors: SensorSet = .nineAxis) { self.sensors = Locked(sensors) }

  var availableSensors: SensorSet { sensors.withLock { $0 } }

  /// Removes `dropped` from ``availableSensors``.
  func drop(_ dropped: SensorSet) { sensors.withLock { $0.subtract(dropped) } }

  func subscribe(
    requestedSampleRate: Double, _ handler: @escaping @Sendable (SourceEvent) -> Void
  ) -> SourceSubscription {
    let id = nextID.withLock {
      $0 += 1; return $0
    }
    handlers.withLock { $0[id] = handler }
    return SourceSubscription { [handlers] in _ = handlers.withLock { $0.removeValue(forKey: id) } }
  }

  func emit(_ event: SourceEvent) {
    for handler in handlers.withLock({ Array($0.values) }) { handler(event) }
  }
}

final class AdvisoryFailureAndBoundedQueueTests: XCTestCase {
  func testAdvisoryFailureReachesTheHandlerAndUpdatesGoOn() throws {
    let source = ScriptedSource()
    let manager = CMMotionManager(source: source)
    manager.accelerometerUpdateInterval = 0.01
    let queue = makeSerialQueue()
    let updates = Collector<Double>()
    let errors = Collector<NSError>()
    manager.startAccelerometerUpdates(to: queue) { data, error in
      if let data { updates.append(data.timestamp) }
      if let error { errors.append(error as NSError) }
    }
    let sequence = manager.accelerometerUpdates()
    for i in 0..<10 {
      if i == 5 {
        source.emit(.failure(SourceFailure(.malformedData, "one bad POST", isFatal: false)))
      }
      source.emit(.sample(Synthetic.sample(at: Double(i) / 100, earthFromSensor: .identity)))
    }
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(updates.count, 10, "updates continue after an advisory failure")
    XCTAssertEqual(errors.count, 1)
    XCTAssertTrue(errors.all.first?.isAdvisorySourceFailure ?? false)
    XCTAssertTrue(manager.isAccelerometerActive)
    XCTAssertNil(sequence.error, "an advisory failure does not end an async sequence")

    // A fatal failure still ends the run.
    source.emit(.failure(SourceFailure(.disconnected, "gone")))
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(errors.count, 2)
    XCTAssertFalse(errors.all.last?.isAdvisorySourceFailure ?? true)
    manager.stopAccelerometerUpdates()
  }

  /// A phone stream offers a gyroscope until it learns the phone streams none; it then drops it
  /// and says so with an advisory failure. Device motion (and the gyroscope) must then read as
  /// not available, and the updates started before must end with `CMErrorNotAvailable`: they
  /// stayed "available" and active, silent for ever.
  func testDeviceMotionEndsWhenTheSourceTurnsOutToHaveNoGyroscope() throws {
    let source = ScriptedSource()
    let manager = CMMotionManager(source: source)
    XCTAssertTrue(manager.isDeviceMotionAvailable)
    let queue = makeSerialQueue()
    let updates = Collector<Double>()
    let errors = Collector<NSError>()
    manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { motion, error in
      if let motion { updates.append(motion.timestamp) }
      if let error { errors.append(error as NSError) }
    }
    let gyroErrors = Collector<NSError>()
    manager.startGyroUpdates(to: queue) { _, error in
      if let error { gyroErrors.append(error as NSError) }
    }
    let sequence = manager.deviceMotionUpdates()
    for i in 0..<100 {
      source.emit(.sample(Synthetic.sample(at: Double(i) / 100, earthFromSensor: .identity)))
    }
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertFalse(updates.all.isEmpty, "device motion runs while the gyroscope streams")
    XCTAssertTrue(errors.all.isEmpty, "\(errors.all)")

    source.drop(.gyroscope)
    let notice = "Sensor Logger streams no gyroscope, so there is no device motion"
    source.emit(.failure(SourceFailure(.other, notice, isFatal: false)))
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertFalse(manager.isDeviceMotionAvailable)
    XCTAssertFalse(manager.isGyroAvailable)
    XCTAssertTrue(manager.isAccelerometerAvailable)
    // The notice itself (advisory), then the end of the run.
    XCTAssertEqual(errors.count, 2, "\(errors.all)")
    XCTAssertTrue(errors.all.first?.isAdvisorySourceFailure ?? false)
    let end = errors.all.last
    XCTAssertEqual(end?.domain, CMErrorDomain)
    XCTAssertEqual(end?.code, Int(CMErrorNotAvailable.rawValue))
    XCTAssertTrue(end?.localizedDescription.contains("no gyroscope") ?? false, "\(errors.all)")
    XCTAssertEqual(
      gyroErrors.all.last?.code, Int(CMErrorNotAvailable.rawValue), "\(gyroErrors.all)")
    XCTAssertEqual(
      (sequence.error as NSError?)?.code, Int(CMErrorNotAvailable.rawValue),
      "the async sequence ends with the error")
    // Once per run: a later failure does not repeat it.
    source.emit(.failure(SourceFailure(.other, "another notice", isFatal: false)))
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(errors.all.filter { $0.code == Int(CMErrorNotAvailable.rawValue) }.count, 1)
    // A start from now on is refused, as on a device without a gyroscope.
    manager.stopDeviceMotionUpdates()
    manager.startDeviceMotionUpdates(to: queue) { _, _ in XCTFail("not available") }
    XCTAssertFalse(manager.isDeviceMotionActive)
    manager.stopGyroUpdates()
  }

  /// A phone experiment without a magnetometer input: the client offers one until it has read
  /// the experiment, then drops it and says so. Device motion in a magnetic frame started before
  /// then went on with the gyroscope alone, its heading drifting under a magnetic-north claim; it
  /// now ends with `CMErrorNotAvailable`, once, while a run in the arbitrary frame, which reads no
  /// magnetometer, goes on.
  func testAMagneticFrameRunEndsWhenTheSourceTurnsOutToHaveNoMagnetometer() throws {
    let source = ScriptedSource()
    let magnetic = CMMotionManager(source: source)
    let arbitrary = CMMotionManager(source: source)
    let queue = makeSerialQueue()
    let magneticErrors = Collector<NSError>()
    let arbitraryErrors = Collector<NSError>()
    let arbitraryUpdates = Collector<Double>()
    magnetic.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: queue) { _, error in
      if let error { magneticErrors.append(error as NSError) }
    }
    arbitrary.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue) { motion, error in
      if let motion { arbitraryUpdates.append(motion.timestamp) }
      if let error { arbitraryErrors.append(error as NSError) }
    }
    func emitSamples(_ range: Range<Int>) {
      for i in range {
        source.emit(.sample(Synthetic.sample(at: Double(i) / 100, earthFromSensor: .identity)))
      }
      queue.waitUntilAllOperationsAreFinished()
    }
    emitSamples(0..<100)
    let notAvailable = Int(CMErrorNotAvailable.rawValue)
    XCTAssertFalse(magneticErrors.all.contains { $0.code == notAvailable }, "\(magneticErrors.all)")

    source.drop(.magnetometer)
    let notice = "the phyphox experiment has no magnetometer input"
    source.emit(.failure(SourceFailure(.other, notice, isFatal: false)))
    emitSamples(100..<200)
    let ends = magneticErrors.all.filter { $0.code == notAvailable }
    XCTAssertEqual(ends.count, 1, "\(magneticErrors.all)")
    XCTAssertTrue(
      ends.first?.localizedDescription.contains("no magnetometer") ?? false, "\(ends)")
    XCTAssertEqual(arbitraryErrors.count, 1, "only the notice: \(arbitraryErrors.all)")
    XCTAssertTrue(arbitraryErrors.all.first?.isAdvisorySourceFailure ?? false)
    XCTAssertGreaterThan(arbitraryUpdates.all.last ?? 0, 1.5, "the arbitrary frame goes on")
    XCTAssertTrue(arbitrary.isDeviceMotionAvailable)
    magnetic.stopDeviceMotionUpdates()
    arbitrary.stopDeviceMotionUpdates()
  }

  /// A phyphox experiment without a pressure input: the client offers the barometer until it has
  /// read the experiment, then drops it and says so. Altitude updates started before then (a
  /// handler, an async sequence, absolute altitude) waited for ever in silence; they now end with
  /// `CMErrorNotAvailable`, once, as CMMotionManager's runs do.
  func testAltitudeUpdatesEndWhenTheSourceTurnsOutToHaveNoBarometer() throws {
    let source = ScriptedSource(sensors: SensorSet.nineAxis.union(.barometer))
    let altimeter = CMAltimeter(source: source)
    let queue = makeSerialQueue()
    let errors = Collector<NSError>()
    altimeter.startRelativeAltitudeUpdates(to: queue) { _, error in
      if let error { errors.append(error as NSError) }
    }
    let absoluteErrors = Collector<NSError>()
    let absolute = UpdateChannel<CMAbsoluteAltitudeData>(interval: CMAltimeter.updateInterval)
    defer { absolute.end() }
    altimeter.connectAbsolute(
      absolute, reference: .seaLevelPressure(101.325),
      sink: .queue(queue) { _, error in if let error { absoluteErrors.append(error as NSError) } })
    let sequence = altimeter.relativeAltitudeUpdates()
    source.emit(.failure(SourceFailure(.other, "one bad message", isFatal: false)))
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(errors.count, 1, "an advisory failure alone ends nothing: \(errors.all)")
    XCTAssertNil(sequence.error)

    source.drop(.barometer)
    let notice = "the phyphox experiment has no pressure input"
    source.emit(.failure(SourceFailure(.other, notice, isFatal: false)))
    source.emit(.failure(SourceFailure(.other, "another notice", isFatal: false)))
    queue.waitUntilAllOperationsAreFinished()
    let notAvailable = Int(CMErrorNotAvailable.rawValue)
    for (name, all) in [("relative", errors.all), ("absolute", absoluteErrors.all)] {
      // The notices (advisory) and, once, the end of the run.
      XCTAssertEqual(all.filter { $0.code == notAvailable }.count, 1, "\(name): \(all)")
      let end = all.first { $0.code == notAvailable }
      XCTAssertEqual(end?.domain, CMErrorDomain, name)
      XCTAssertTrue(end?.localizedDescription.contains("no barometer") ?? false, "\(name): \(all)")
    }
    XCTAssertEqual((sequence.error as NSError?)?.code, notAvailable, "the sequence ends with it")
    altimeter.stopRelativeAltitudeUpdates()
  }

  /// The pedometer, activity and altimeter sequences too: an advisory failure (one malformed
  /// message of a phone stream) leaves them running; a fatal one ends them with its error. They
  /// used to end at any failure.
  func testAdvisoryFailureDoesNotEndTheHistorySequences() throws {
    let source = ScriptedSource(sensors: SensorSet.nineAxis.union(.barometer))
    let pedometer = CMPedometer(source: source)
    let activityManager = CMMotionActivityManager(source: source)
    let altimeter = CMAltimeter(source: source)
    let steps = pedometer.updates(from: Date.distantPast)
    let events = pedometer.eventUpdates()
    let activities = activityManager.activityUpdates()
    let altitudes = altimeter.relativeAltitudeUpdates()
    func errors() -> [(String, (any Error)?)] {
      [
        ("pedometer", steps.error), ("pedometer events", events.error),
        ("activity", activities.error), ("altitude", altitudes.error),
      ]
    }
    source.emit(.sample(Synthetic.sample(at: 0, earthFromSensor: .identity)))
    source.emit(.failure(SourceFailure(.malformedData, "one bad POST", isFatal: false)))
    source.emit(.sample(Synthetic.sample(at: 0.01, earthFromSensor: .identity)))
    for (name, error) in errors() {
      XCTAssertNil(error, "an advisory failure ends the \(name) sequence")
    }
    source.emit(.failure(SourceFailure(.disconnected, "gone")))
    for (name, error) in errors() {
      XCTAssertNotNil(error, "a fatal failure leaves the \(name) sequence running")
    }
  }

  /// A blocked handler queue keeps at most `maximumQueuedUpdates` operations; the rest are dropped
  /// and counted (it used to grow by one Operation per sample without limit).
  func testBlockedHandlerQueueIsBounded() throws {
    let source = ScriptedSource()
    let manager = CMMotionManager(source: source)
    manager.accelerometerUpdateInterval = 0.01
    let queue = makeSerialQueue()
    queue.isSuspended = true
    let handled = Locked(0)
    manager.startAccelerometerUpdates(to: queue) { _, _ in handled.withLock { $0 += 1 } }
    let sent = 3 * UpdateChannel<CMAccelerometerData>.maximumQueuedUpdates
    for i in 0..<sent {
      source.emit(.sample(Synthetic.sample(at: Double(i) / 100, earthFromSensor: .identity)))
    }
    XCTAssertEqual(queue.operationCount, UpdateChannel<CMAccelerometerData>.maximumQueuedUpdates)
    queue.isSuspended = false
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(handled.withLock { $0 }, UpdateChannel<CMAccelerometerData>.maximumQueuedUpdates)
    // Once drained, updates flow again.
    source.emit(.sample(Synthetic.sample(at: Double(sent) / 100, earthFromSensor: .identity)))
    queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(
      handled.withLock { $0 }, UpdateChannel<CMAccelerometerData>.maximumQueuedUpdates + 1)
    manager.stopAccelerometerUpdates()
  }

  /// Operations the app cancels (`cancelAllOperations()` on its handler queue) give their place
  /// in the bound back: before, each left the count of queued updates one higher for the life of
  /// the object, and once a full queue's worth had been cancelled every update was dropped.
  func testCancelledOperationsGiveTheirPlaceBack() throws {
    let source = ScriptedSource()
    let manager = CMMotionManager(source: source)
    manager.accelerometerUpdateInterval = 0.01
    let queue = makeSerialQueue()
    let handled = Locked(0)
    manager.startAccelerometerUpdates(to: queue) { _, _ in handled.withLock { $0 += 1 } }
    let limit = UpdateChannel<CMAccelerometerData>.maximumQueuedUpdates
    var time = 0.0
    for _ in 0..<2 {
      queue.isSuspended = true
      for _ in 0..<limit {
        source.emit(.sample(Synthetic.sample(at: time, earthFromSensor: .identity)))
        time += 0.01
      }
      queue.cancelAllOperations()
      queue.isSuspended = false
      queue.waitUntilAllOperationsAreFinished()
    }
    XCTAssertEqual(handled.withLock { $0 }, 0)
    // A cancelled operation's completion may run just after the queue reports it finished.
    let deadline = Date().addingTimeInterval(5)
    while handled.withLock({ $0 }) == 0, Date() < deadline {
      source.emit(.sample(Synthetic.sample(at: time, earthFromSensor: .identity)))
      time += 0.01
      queue.waitUntilAllOperationsAreFinished()
    }
    XCTAssertGreaterThan(handled.withLock { $0 }, 0, "updates flow after cancelled ones")
    manager.stopAccelerometerUpdates()
  }

  /// An async sequence nobody reads keeps the newest `maximumBufferedUpdates` and counts the rest.
  func testUnreadAsyncSequenceIsBounded() async throws {
    let source = ScriptedSource()
    let manager = CMMotionManager(source: source)
    manager.accelerometerUpdateInterval = 0.01
    let sequence = manager.accelerometerUpdates()
    let limit = MotionUpdateSequence<CMAccelerometerData>.maximumBufferedUpdates
    for i in 0..<(limit + 500) {
      source.emit(.sample(Synthetic.sample(at: Double(i) / 100, earthFromSensor: .identity)))
    }
    XCTAssertEqual(sequence.droppedCount, 500)
    var iterator = sequence.makeAsyncIterator()
    let first = await iterator.next()
    XCTAssertEqual(try XCTUnwrap(first).timestamp, 5, accuracy: 1e-9, "the oldest 500 were dropped")
    manager.stopAccelerometerUpdates()
  }
}
