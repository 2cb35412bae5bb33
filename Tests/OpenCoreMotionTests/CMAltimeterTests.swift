// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import SourceComposition
import XCTest

@testable import OpenCoreMotion

/// CMAltimeter on the simulator's noiseless barometer: the device is carried 10 m straight up.
final class CMAltimeterTests: XCTestCase {
  private func lift(_ clock: VirtualClock) -> (CMAltimeter, Scenario) {
    let scenario = HistoryFixture.liftScenario(rise: 10, duration: 10)
    return (
      CMAltimeter(backend: HistoryFixture.history(HistoryFixture.player(scenario, clock: clock))),
      scenario
    )
  }

  func testRelativeAltitudeStartsAtZeroAndFollowsTheStandardAtmosphere() throws {
    let clock = VirtualClock()
    let (altimeter, scenario) = lift(clock)
    let queue = makeSerialQueue()
    let received = Collector<CMAltitudeData>()
    altimeter.startRelativeAltitudeUpdates(to: queue) { data, error in
      XCTAssertNil(error)
      data.map(received.append)
    }
    clock.advance(by: scenario.segmentsDuration + 1)
    drain(queue)
    altimeter.stopRelativeAltitudeUpdates()
    let all = received.all
    // One event per second of the 15 s scenario, whether or not the altitude changed.
    XCTAssertEqual(Double(all.count), scenario.segmentsDuration, accuracy: 1)
    let first = try XCTUnwrap(all.first)
    XCTAssertEqual(first.relativeAltitude.doubleValue, 0)
    for (a, b) in zip(all, all.dropFirst()) {
      // Regular: one source period (10 ms) of slack.
      XCTAssertEqual(b.timestamp - a.timestamp, 1, accuracy: 0.01)
    }
    // Pressure in kPa near sea level; relative altitude is the standard-atmosphere height
    // difference of the reported pressures (to rounding, 1e-9 m).
    let p0 = first.pressure.doubleValue
    XCTAssertEqual(p0, 101.325, accuracy: 0.01)
    for data in all {
      let expected =
        PressureAltitudeAdapter.standardHeight(pressure: data.pressure.doubleValue)
        - PressureAltitudeAdapter.standardHeight(pressure: p0)
      XCTAssertEqual(data.relativeAltitude.doubleValue, expected, accuracy: 1e-9)
    }
    // The simulator's barometer uses the inverse formula; the 10 m climb comes back to 1 mm.
    XCTAssertEqual(try XCTUnwrap(all.last).relativeAltitude.doubleValue, 10, accuracy: 0.001)
  }

  func testSecondStartReplacesTheHandlerAndRestartsFromZero() {
    let clock = VirtualClock()
    let (altimeter, scenario) = lift(clock)
    let queue = makeSerialQueue()
    let first = Collector<CMAltitudeData>()
    let second = Collector<CMAltitudeData>()
    altimeter.startRelativeAltitudeUpdates(to: queue) { data, _ in data.map(first.append) }
    clock.advance(by: 7)
    drain(queue)
    let firstCount = first.count
    XCTAssertGreaterThan(firstCount, 3)
    altimeter.startRelativeAltitudeUpdates(to: queue) { data, _ in data.map(second.append) }
    clock.advance(by: scenario.segmentsDuration)
    drain(queue)
    altimeter.stopRelativeAltitudeUpdates()
    XCTAssertEqual(first.count, firstCount, "only the last installed handler receives events")
    let replaced = second.all
    XCTAssertEqual(replaced.first?.relativeAltitude.doubleValue, 0)
    // The climb ends 10 m up; the second handler started part-way, so it saw less than 10 m.
    let climbed = replaced.last?.relativeAltitude.doubleValue ?? 0
    XCTAssertGreaterThan(climbed, 1)
    XCTAssertLessThan(climbed, 10)
  }

  func testNoHandlerRunsAfterStop() {
    let clock = VirtualClock()
    let (altimeter, _) = lift(clock)
    let queue = makeSerialQueue()
    let received = Collector<CMAltitudeData>()
    altimeter.startRelativeAltitudeUpdates(to: queue) { data, _ in data.map(received.append) }
    clock.advance(by: 4)
    altimeter.stopRelativeAltitudeUpdates()
    let atStop = received.count
    clock.advance(by: 20)
    drain(queue)
    XCTAssertEqual(received.count, atStop)
  }

  /// An object kept alive only by its handler, which stops the altimeter in its deinit (a common
  /// iOS shape: a reader that cleans up after itself). Stopping updates releases the handler and
  /// so runs that deinit, which stops the altimeter again: the release used to happen under the
  /// channel's locks, and the second stop waited for them for ever.
  func testStoppingReleasesAHandlerWhoseOwnerStopsTheAltimeterInItsDeinit() {
    final class Reader: @unchecked Sendable {
      // Sendable for the handler's capture: `altimeter` is immutable and thread-safe.
      let altimeter: CMAltimeter
      init(_ altimeter: CMAltimeter, queue: OperationQueue) {
        self.altimeter = altimeter
        altimeter.startRelativeAltitudeUpdates(to: queue) { data, _ in _ = (self, data) }
      }
      deinit { altimeter.stopRelativeAltitudeUpdates() }
    }
    let clock = VirtualClock()
    let (altimeter, _) = lift(clock)
    let queue = makeSerialQueue()
    _ = Reader(altimeter, queue: queue)
    clock.advance(by: 2)
    drain(queue)
    let stopped = DispatchSemaphore(value: 0)
    // Used from that thread only until the semaphore says it is done (a hang keeps it there).
    nonisolated(unsafe) let stopping = altimeter
    Thread {
      stopping.stopRelativeAltitudeUpdates()
      // A second start replaces the handler the same way.
      _ = Reader(stopping, queue: queue)
      stopping.startRelativeAltitudeUpdates(to: queue) { _, _ in }
      stopping.stopRelativeAltitudeUpdates()
      stopped.signal()
    }.start()
    XCTAssertEqual(stopped.wait(timeout: .now() + 60), .success, "stopping hung")
  }

  func testWithoutABarometerStartDoesNothing() async {
    let clock = VirtualClock()
    let altimeter = CMAltimeter(
      backend: HistoryFixture.history(HistoryFixture.gyroscopeOnly(clock: clock)))
    let queue = makeSerialQueue()
    let received = Collector<Bool>()
    altimeter.startRelativeAltitudeUpdates(to: queue) { _, _ in received.append(true) }
    clock.advance(by: 3)
    drain(queue)
    XCTAssertEqual(received.count, 0)
    let sequence = altimeter.relativeAltitudeUpdates()
    for await _ in sequence { XCTFail("no altitude without a barometer") }
    XCTAssertEqual(coreMotionCode(sequence.error), Int(CMErrorNotAvailable.rawValue))
    let errors = Collector<Int?>()
    altimeter.startAbsoluteAltitudeUpdates(to: queue) { _, error in
      errors.append(coreMotionCode(error))
    }
    drain(queue)
    XCTAssertEqual(errors.all, [Int(CMErrorNotAvailable.rawValue)])
    XCTAssertEqual(
      CMAltimeter.isRelativeAltitudeAvailable(),
      SourceFactory.defaultSource.availableSensors.contains(.barometer))
  }

  /// The absolute altitudes `altimeter` delivers on `channel` from `reference` while `advance`
  /// runs (with no error), after which the channel ends.
  private func absoluteAltitudes(
    _ altimeter: CMAltimeter, on channel: UpdateChannel<CMAbsoluteAltitudeData>,
    from reference: AltitudeReference, while advance: () -> Void
  ) -> [CMAbsoluteAltitudeData] {
    let queue = makeSerialQueue()
    let received = Collector<CMAbsoluteAltitudeData>()
    altimeter.connectAbsolute(
      channel, reference: reference,
      sink: .queue(
        queue,
        { data, error in
          XCTAssertNil(error)
          data.map(received.append)
        }))
    advance()
    drain(queue)
    channel.end()
    return received.all
  }

  func testAbsoluteAltitudeFromASeaLevelPressureOrAStartAltitude() async throws {
    for (reference, start) in [
      (AltitudeReference.seaLevelPressure(101.325), 0.0), (.startAltitude(250), 250),
    ] {
      let clock = VirtualClock()
      let (altimeter, scenario) = lift(clock)
      let channel = UpdateChannel<CMAbsoluteAltitudeData>(interval: 0)
      let all = absoluteAltitudes(altimeter, on: channel, from: reference) {
        clock.advance(by: scenario.segmentsDuration + 1)
      }
      // The simulator starts at sea level in the standard atmosphere: 1 mm (formula rounding).
      XCTAssertEqual(try XCTUnwrap(all.first).altitude, start, accuracy: 0.001, "\(reference)")
      XCTAssertEqual(try XCTUnwrap(all.last).altitude, start + 10, accuracy: 0.001, "\(reference)")
      XCTAssertEqual(all.first?.accuracy, AltitudeReference.accuracy)
      XCTAssertEqual(all.first?.precision, AltitudeReference.precision)
    }
    // Without a reference: not available.
    let clock = VirtualClock()
    let (altimeter, _) = lift(clock)
    let sequence = makeUpdateSequence { altimeter.connectAbsolute($0, reference: nil, sink: $1) }
    for await _ in sequence { XCTFail("no absolute altitude without a reference") }
    XCTAssertEqual(coreMotionCode(sequence.error), Int(CMErrorNotAvailable.rawValue))
  }

  /// A start altitude anchors the barometer once: updates started again after a 10 m climb, by
  /// the same altimeter or another one of the same source, read 10 m more, not the start altitude
  /// again. Another altitude (the device moved) anchors afresh.
  /// The anchor lasts an hour: weather moves the pressure by about 3 m of apparent climb an
  /// hour, and a board left in one place for days would otherwise drift without end.
  func testAStartAltitudeAnchorIsRenewedAfterAnHour() {
    let history = HistoryFixture.history(HistoryFixture.gyroscopeOnly(clock: VirtualClock()))
    let start = HistoryFixture.date(0)
    func anchor(_ pressure: Double, at seconds: Double) -> Double {
      history.pressure(
        atStartAltitude: 250, reading: pressure, date: start.addingTimeInterval(seconds))
    }
    XCTAssertEqual(anchor(100, at: 0), 100)
    XCTAssertEqual(anchor(99.9, at: 3000), 100, "within the hour: the first reading's")
    XCTAssertEqual(anchor(99.8, at: 3700), 99.8, "after it: anchored afresh")
    XCTAssertEqual(anchor(99.7, at: 3800), 99.8)
  }

  func testAStartAltitudeIsAnchoredOnceNotAtEveryStart() throws {
    let clock = VirtualClock()
    let scenario = Scenario(
      name: "lift-and-wait",
      segments: [
        .rest(duration: 2), .translate(displacement: SIMD3(0, 0, 10), duration: 10),
        .rest(duration: 10),
      ],
      noise: .noiseless)
    let history = HistoryFixture.history(HistoryFixture.player(scenario, clock: clock))
    let street = CMAltimeter(backend: history)
    let streetChannel = UpdateChannel<CMAbsoluteAltitudeData>(interval: 0)
    // Absolute altitudes from `reference` for `seconds` of source time, from the clock's time.
    func run(
      _ altimeter: CMAltimeter, on channel: UpdateChannel<CMAbsoluteAltitudeData>,
      _ reference: AltitudeReference, for seconds: Double
    ) throws -> CMAbsoluteAltitudeData {
      let all = absoluteAltitudes(altimeter, on: channel, from: reference) {
        clock.advance(by: seconds)
      }
      return try XCTUnwrap(all.first, "\(reference) at \(clock.now) s")
    }
    XCTAssertEqual(
      try run(street, on: streetChannel, .startAltitude(250), for: 1).altitude, 250,
      accuracy: 0.001)
    // Carried 10 m up (2–12 s) without updates; the same altimeter starts again at 15 s.
    clock.advance(by: 14)
    XCTAssertEqual(
      try run(street, on: streetChannel, .startAltitude(250), for: 1).altitude, 260,
      accuracy: 0.001)
    // So does a second altimeter of the same source.
    let other = CMAltimeter(backend: history)
    let otherChannel = UpdateChannel<CMAbsoluteAltitudeData>(interval: 0)
    XCTAssertEqual(
      try run(other, on: otherChannel, .startAltitude(250), for: 1).altitude, 260,
      accuracy: 0.001)
    // Another altitude anchors afresh, and so does the first one given again after it.
    XCTAssertEqual(
      try run(other, on: otherChannel, .startAltitude(400), for: 1).altitude, 400,
      accuracy: 0.001)
    XCTAssertEqual(
      try run(street, on: streetChannel, .startAltitude(250), for: 1).altitude, 250,
      accuracy: 0.001)
  }

  func testTheHistoryKeepsOneReadingPerSecond() throws {
    let clock = VirtualClock()
    let scenario = HistoryFixture.liftScenario(rise: 10, duration: 10)
    let history = HistoryFixture.history(HistoryFixture.player(scenario, clock: clock))
    clock.advance(by: scenario.segmentsDuration + 1)
    let records = history.altitudes(from: HistoryFixture.anchor, to: HistoryFixture.date(100))
    XCTAssertEqual(Double(records.count), scenario.segmentsDuration, accuracy: 1)
    XCTAssertEqual(records.map(\.date), records.map(\.date).sorted())
    let climb = try XCTUnwrap(records.last).altitude - XCTUnwrap(records.first).altitude
    XCTAssertEqual(climb, 10, accuracy: 0.001)
    XCTAssertEqual(
      history.altitudes(from: HistoryFixture.date(5), to: HistoryFixture.date(5.5)).count, 1)
  }

  func testAltitudeReferenceFromTheEnvironment() {
    XCTAssertEqual(
      AltitudeReference.current(environment: ["COREMOTION_SEA_LEVEL_PRESSURE": "101.8"]),
      .seaLevelPressure(101.8))
    if CMMotionManager.deviceLocation == nil {
      XCTAssertEqual(
        AltitudeReference.current(environment: ["COREMOTION_LOCATION": "48.85,2.29,35"]),
        .startAltitude(35))
      XCTAssertNil(AltitudeReference.current(environment: [:]))
      // A location without an altitude (enough for true north) is no altitude reference: Denver
      // is 1,600 m up, and absolute altitude used to start there from 0 m.
      XCTAssertNil(AltitudeReference.current(environment: ["COREMOTION_LOCATION": "39.74,-104.99"]))
      // Out of range or malformed: ignored.
      XCTAssertNil(
        AltitudeReference.current(environment: ["COREMOTION_SEA_LEVEL_PRESSURE": "1013"]))
      XCTAssertNil(
        AltitudeReference.current(environment: ["COREMOTION_SEA_LEVEL_PRESSURE": "high"]))
    }
  }
}
