// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionSensors
import XCTest
import _MotionTestSupport

@testable import OpenCoreMotion

/// CMPedometer counts steps walked: a bicycle ride's pedalling, which the step detector alone
/// counts as slow walking, stays out of the count, and a walk keeps every step. Recordings:
/// QROWD/TR (MIT, QROWD project 2018) from ../shared/data/activity, replayed through the
/// in-process history on a virtual clock.
final class CMPedometerRideTests: XCTestCase {
  /// The shared QROWD recording `name`, checked to be there (on CI a missing file fails).
  private func recording(_ name: String) throws -> URL {
    let url = SharedData.root.appendingPathComponent("data/activity/qrowd/\(name)")
    guard FileManager.default.fileExists(atPath: url.path) else {
      if SharedData.isCI { XCTFail("missing shared activity file \(url.path) on CI") }
      throw XCTSkip("shared activity file \(url.path) not found")
    }
    return url
  }

  /// The steps `pedometer` reports from source time `start` to `end` (s).
  private func steps(_ pedometer: CMPedometer, from start: Double, to end: Double) throws -> Int {
    let result = Locked<CMPedometerData?>(nil)
    let done = expectation(description: "query")
    pedometer.queryPedometerData(
      from: HistoryFixture.date(start), to: HistoryFixture.date(end)
    ) { data, error in
      XCTAssertNil(error)
      result.withLock { $0 = data }
      done.fulfill()
    }
    wait(for: [done], timeout: 30)
    return try XCTUnwrap(result.withLock { $0 }).numberOfSteps.intValue
  }

  /// Steps `CMPedometer` reports for the whole of the shared recording `name`.
  private func pedometerSteps(replaying name: String) throws -> Int {
    let clock = VirtualClock()
    let stream = try RecordingReader.openIncludingSharedTables(try recording(name))
    let pedometer = CMPedometer(
      backend: HistoryFixture.history(StreamPlayer(stream, pacing: .virtual(clock))))
    clock.advance(by: 3600)
    return try steps(pedometer, from: 0, to: 3600)
  }

  /// The samples of `name` from `start` to `start + length` (s), moved to begin at `offset`.
  private func piece(
    of name: String, from start: Double, length: Double, movedTo offset: Double
  ) throws -> [MotionSample] {
    var stream = try RecordingReader.openIncludingSharedTables(try recording(name))
    var samples: [MotionSample] = []
    while var sample = try stream.next() {
      guard sample.timestamp >= start, sample.timestamp < start + length else { continue }
      sample.timestamp += offset - start
      samples.append(sample)
    }
    return samples
  }

  /// A pedometer over `samples` (QROWD's 15 Hz accelerometer) on a virtual clock, run to the end,
  /// with its pedestrian events.
  private func pedometer(
    over samples: [MotionSample]
  ) -> (pedometer: CMPedometer, events: [CMPedometerEvent]) {
    let clock = VirtualClock()
    let stream = ArraySampleStream(
      samples,
      descriptor: StreamDescriptor(
        name: "qrowd-pieces", sensors: .accelerometer, nominalSampleRate: 15))
    let pedometer = CMPedometer(
      backend: HistoryFixture.history(StreamPlayer(stream, pacing: .virtual(clock))))
    let events = Collector<CMPedometerEvent>()
    pedometer.startEventUpdates { event, _ in event.map(events.append) }
    clock.advance(by: (samples.last?.timestamp ?? 0) + 10)
    drain(pedometer.handlerQueue)
    pedometer.stopEventUpdates()
    return (pedometer, events.all)
  }

  /// Two minutes of cycling, then a minute and a half of walking (QROWD user 1, pieces from the
  /// middle of each file). The classifier reports the walk some seconds after it begins; the
  /// steps held meanwhile as the ride's are given back, so the walk counts as many steps as the
  /// same walk does with nothing before it (2026-11-28: 155 and 155; 7 steps in the ride). The
  /// pedestrian events stay in time order: a resume is never dated before the pause it follows
  /// (steps confirmed late, given back or at a new bout, are older than the pause).
  func testAWalkRightAfterARideKeepsItsSteps() throws {
    let ride = try piece(of: "bike_user1.csv", from: 300, length: 120, movedTo: 0)
    let walk = try piece(of: "walk_user1.csv", from: 300, length: 90, movedTo: 120)
    XCTAssertGreaterThan(ride.count, 1500)
    XCTAssertGreaterThan(walk.count, 1200)
    let alone = try steps(pedometer(over: walk).pedometer, from: 120, to: 220)
    XCTAssertGreaterThan(alone, 100, "the walk alone")
    let (afterRide, events) = pedometer(over: ride + walk)
    let rideSteps = try steps(afterRide, from: 0, to: 120)
    let walkSteps = try steps(afterRide, from: 120, to: 220)
    XCTAssertLessThanOrEqual(rideSteps, 15, "two minutes of pedalling")
    XCTAssertGreaterThanOrEqual(walkSteps, alone - 2, "\(walkSteps) steps, \(alone) alone")
    XCTAssertLessThanOrEqual(walkSteps, alone + 2, "\(walkSteps) steps, \(alone) alone")
    let dates = events.map(\.date)
    XCTAssertEqual(dates, dates.sorted(), "events in time order: \(events.map(\.type.rawValue))")
    // The recording ends walking: the walk's resume, then its pause at the end of the source.
    XCTAssertEqual(events.suffix(2).map(\.type), [.resume, .pause])
  }

  /// A recording that ends seconds after a ride, while the riding gate still holds the walk's
  /// steps waiting for the walk to be confirmed: they are counted at the end of the source, as
  /// `motionctl steps` and the daemon count them. The in-process history used to lose them
  /// (2026-11-30: a walk of 6 s counted 0 steps after the ride, 11 alone; now 11).
  func testAWalkCutShortAfterARideKeepsItsSteps() throws {
    let ride = try piece(of: "bike_user1.csv", from: 300, length: 120, movedTo: 0)
    for length in [6.0, 10, 14] {
      let walk = try piece(of: "walk_user1.csv", from: 300, length: length, movedTo: 120)
      let alone = try steps(pedometer(over: walk).pedometer, from: 120, to: 120 + length + 1)
      let afterRide = try steps(pedometer(over: ride + walk).pedometer, from: 120, to: 220)
      XCTAssertGreaterThan(alone, Int(length), "a walk of \(length) s alone")
      XCTAssertGreaterThanOrEqual(
        afterRide, alone - 2,
        "a walk of \(length) s: \(afterRide) steps after the ride, \(alone) alone")
    }
  }

  /// 13 min of cycling: the step detector alone finds 710 steps in it (`motionctl steps` before
  /// the riding gate, 2026-11-28). The pedometer counted 38 of them with the gate (two brief
  /// walking reports mid-ride each gave back 12 s of the ride), and none since a walking report
  /// must last 5 s to give steps back (`motionctl steps`, 2026-11-28, night).
  func testABicycleRideAddsFewSteps() throws {
    let steps = try pedometerSteps(replaying: "bike_user1.csv")
    XCTAssertLessThanOrEqual(steps, 20, "at most 3 % of the 710 pedalling 'steps'")
  }

  /// 15 min of walking: every step the detector finds (1,593) is counted.
  func testAWalkKeepsEveryStep() throws {
    let steps = try pedometerSteps(replaying: "walk_user1.csv")
    XCTAssertEqual(steps, 1593, accuracy: 8)
  }
}
