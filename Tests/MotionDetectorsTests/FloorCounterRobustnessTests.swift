// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionDetectors
import XCTest

/// The floor counter on streams with holes and bogus times, and with hostile parameters. The
/// streams are exact (no noise): 10 Hz barometer readings of a height profile, and a step every
/// 0.5 s while walking, each noted before the first reading at or after it, as callers do.
final class FloorCounterRobustnessTests: XCTestCase {
  /// The pressure, kPa, at which the standard atmosphere has `height` m (``BarometricAltitude``'s
  /// formula inverted).
  static func pressure(atHeight height: Double) -> Double {
    BarometricAltitude.standardSeaLevelPressure * pow(1 - height / 44_330.77, 1 / 0.190_263)
  }

  /// Feeds readings at 10 Hz from `start` to `end` s of `height(t)` m, and while `walking` a step
  /// every 0.5 s.
  static func feed(
    _ counter: inout FloorCounter, from start: Double, to end: Double, walking: Bool,
    height: (Double) -> Double
  ) {
    let count = Int(((end - start) * 10).rounded())
    for index in 0..<count {
      let time = start + Double(index) / 10
      if walking, index % 5 == 0 { counter.noteStep(time: time) }
      _ = counter.process(time: time, pressure: pressure(atHeight: height(time)))
    }
  }

  /// Walking on the level at `height` m from `start` to `end` s.
  static func walkOnTheLevel(
    _ counter: inout FloorCounter, from start: Double, to end: Double, at height: Double
  ) {
    feed(&counter, from: start, to: end, walking: true) { _ in height }
  }

  /// Walking up stairs at 0.2 m/s from `start` s, `from` m to `to` m, then 40 s on the level.
  static func climb(
    _ counter: inout FloorCounter, from start: Double, heights: ClosedRange<Double>
  ) {
    let duration = (heights.upperBound - heights.lowerBound) / 0.2
    feed(&counter, from: start, to: start + duration, walking: true) {
      heights.lowerBound + 0.2 * ($0 - start)
    }
    walkOnTheLevel(
      &counter, from: start + duration, to: start + duration + 40, at: heights.upperBound)
  }

  /// The check that the streams below climb as intended: a 6 m staircase is two floors.
  func testSixMetresOfStairsAreTwoFloors() {
    var counter = FloorCounter()
    Self.walkOnTheLevel(&counter, from: 0, to: 20, at: 0)
    Self.climb(&counter, from: 20, heights: 0...6)
    XCTAssertEqual(counter.floorsAscended, 2)
    XCTAssertEqual(counter.floorsDescended, 0)
  }

  // MARK: - Gaps in the readings

  /// Walking on the level for 30 s, no readings for 30 s (a phone stream dropped in a lift that
  /// rose 9 m), walking on the level at +9 m for 60 s: no floor, the height changed unseen and
  /// may have been ridden. Before, the change across the gap counted 3 floors when the walking
  /// went on. Stairs climbed afterwards still count (2 floors for 6 m).
  func testAHeightChangeAcrossAGapIsNotCounted() {
    var counter = FloorCounter()
    Self.walkOnTheLevel(&counter, from: 0, to: 30, at: 0)
    Self.walkOnTheLevel(&counter, from: 60, to: 120, at: 9)
    XCTAssertEqual(counter.floorsAscended, 0)
    XCTAssertEqual(counter.floorsDescended, 0)
    Self.climb(&counter, from: 120, heights: 9...15)
    XCTAssertEqual(counter.floorsAscended, 2)
    XCTAssertEqual(counter.floorsDescended, 0)
  }

  /// A 6 m staircase whose barometer drops out for 6 s half-way up while the steps go on (a phone
  /// stream over Wi-Fi): still 2 floors. The steps noted in the gap show it was walked, so the
  /// climb under way is kept.
  func testAWalkedGapInTheReadingsKeepsTheClimb() {
    var counter = FloorCounter()
    Self.walkOnTheLevel(&counter, from: 0, to: 20, at: 0)
    let height = { (time: Double) in Swift.min(6, 0.2 * (time - 20)) }
    Self.feed(&counter, from: 20, to: 33, walking: true, height: height)
    // 33…39 s: steps, no readings.
    for index in 0..<12 { counter.noteStep(time: 33 + 0.5 * Double(index)) }
    Self.feed(&counter, from: 39, to: 90, walking: true, height: height)
    XCTAssertEqual(counter.floorsAscended, 2)
    XCTAssertEqual(counter.floorsDescended, 0)
  }

  /// A gap in the readings is walked only where its steps, by their times, cover it.
  /// - Walking on the level for 30 s, then the readings stop: 15 s walking to the lift (a step
  ///   every 0.5 s, 30.0…44.5 s), a 9 m ride without a step (45…60 s), and walking on at +9 m
  ///   from 60 s. No floor: the steps of the gap stop 15 s before it ends. Before, the gap
  ///   counted as walked when steps × `walkingGap` reached its length (31 × 2 s ≥ 30.1 s),
  ///   whatever their times, and the ride counted 3 floors.
  /// - The same ride after standing, with the walk's steps given back late, in a burst during the
  ///   gap with their old times (0…29.5 s): old times cover nothing after the last reading, no
  ///   floor (before: 3).
  /// - A 6 m staircase at 0.2 m/s whose barometer drops out for 20 s (25…45 s, most of the climb)
  ///   while a step is noted every 0.5 s throughout: covered, so the climb counts its 2 floors.
  func testAGapIsWalkedOnlyWhereItsStepsCoverIt() {
    var lift = FloorCounter()
    Self.walkOnTheLevel(&lift, from: 0, to: 30, at: 0)
    for index in 0..<30 { lift.noteStep(time: 30 + 0.5 * Double(index)) }
    Self.walkOnTheLevel(&lift, from: 60, to: 120, at: 9)
    XCTAssertEqual(lift.floorsAscended, 0)
    XCTAssertEqual(lift.floorsDescended, 0)

    var late = FloorCounter()
    Self.feed(&late, from: 0, to: 30, walking: false) { _ in 0 }
    for index in 0..<60 { late.noteStep(time: 0.5 * Double(index)) }
    Self.walkOnTheLevel(&late, from: 60, to: 120, at: 9)
    XCTAssertEqual(late.floorsAscended, 0)
    XCTAssertEqual(late.floorsDescended, 0)

    var stairs = FloorCounter()
    Self.walkOnTheLevel(&stairs, from: 0, to: 20, at: 0)
    let height = { (time: Double) in Swift.min(6, Swift.max(0, 0.2 * (time - 20))) }
    Self.feed(&stairs, from: 20, to: 25, walking: true, height: height)
    for index in 0..<40 { stairs.noteStep(time: 25 + 0.5 * Double(index)) }
    Self.feed(&stairs, from: 45, to: 100, walking: true, height: height)
    XCTAssertEqual(stairs.floorsAscended, 2)
    XCTAssertEqual(stairs.floorsDescended, 0)
  }

  /// An hour without readings, then the level is 1.6 m higher (weather, or another level): no
  /// floor (before: 1).
  func testAnHourLongGapCountsNothing() {
    var counter = FloorCounter()
    Self.walkOnTheLevel(&counter, from: 0, to: 60, at: 0)
    Self.walkOnTheLevel(&counter, from: 3600, to: 3720, at: 1.6)
    XCTAssertEqual(counter.floorsAscended, 0)
    XCTAssertEqual(counter.floorsDescended, 0)
  }

  // MARK: - Bogus times

  /// One reading at t = 1e9 after 30 s of walking, then the readings go on from t = 30 and a 6 m
  /// staircase is climbed: 2 floors. Before, no bin closed again (every reading was earlier
  /// than the bin's start) and it counted 0.
  func testOneFutureReadingDoesNotLockTheReadingsOut() {
    var counter = FloorCounter()
    Self.walkOnTheLevel(&counter, from: 0, to: 30, at: 0)
    _ = counter.process(time: 1e9, pressure: Self.pressure(atHeight: 0))
    Self.walkOnTheLevel(&counter, from: 30, to: 50, at: 0)
    Self.climb(&counter, from: 50, heights: 0...6)
    XCTAssertEqual(counter.floorsAscended, 2)
    XCTAssertEqual(counter.floorsDescended, 0)
  }

  /// One step noted at t = 1e9 after 30 s of walking, then a 12 m lift ride standing still: no
  /// floor (before: 4, the bogus step kept "walking" true for good). Stairs walked afterwards
  /// count (2 floors for 6 m): real steps replace the bogus one.
  func testOneFutureStepDoesNotMakeALiftRideWalked() {
    var counter = FloorCounter()
    Self.walkOnTheLevel(&counter, from: 0, to: 30, at: 0)
    counter.noteStep(time: 1e9)
    Self.feed(&counter, from: 30, to: 90, walking: false) { time in
      Swift.min(12, Swift.max(0, time - 60))  // 1 m/s from t = 60 s
    }
    XCTAssertEqual(counter.floorsAscended, 0)
    XCTAssertEqual(counter.floorsDescended, 0)
    Self.walkOnTheLevel(&counter, from: 90, to: 110, at: 12)
    Self.climb(&counter, from: 110, heights: 12...18)
    XCTAssertEqual(counter.floorsAscended, 2)
    XCTAssertEqual(counter.floorsDescended, 0)
  }

  /// A 6 m staircase at t = 1000…, then the clock restarts at 0 and another 6 m staircase: 4
  /// floors (before: 2, the second timeline's readings all joined one bin).
  func testAClockThatRestartsLowerCountsBothStaircases() {
    var counter = FloorCounter()
    Self.walkOnTheLevel(&counter, from: 1000, to: 1020, at: 0)
    Self.climb(&counter, from: 1020, heights: 0...6)
    XCTAssertEqual(counter.floorsAscended, 2)
    Self.walkOnTheLevel(&counter, from: 0, to: 20, at: 6)
    Self.climb(&counter, from: 20, heights: 6...12)
    XCTAssertEqual(counter.floorsAscended, 4)
    XCTAssertEqual(counter.floorsDescended, 0)
  }

  // MARK: - Hostile parameters

  /// No setting traps or hangs; each is used within its documented range. On a 6 m staircase at
  /// 0.2 m/s, walked: a NaN means the default (2 floors); an infinite or huge slope window is
  /// thirteen bins, and 0 one bin (still 2 floors: the climb lasts 30 s); a floor height of 0,
  /// −1 or 1e-9 m (with any margin) is 0.5 m, so 6 m counts 10 to 12 floors (the last metre may
  /// stay under the margin). Before, the slope windows and NaNs trapped converting to `Int`, and
  /// the small floor heights spun the counting loop for ever.
  func testHostileParametersNeitherTrapNorHang() {
    typealias Parameters = FloorCounter.Parameters
    func set(_ change: (inout Parameters) -> Void) -> Parameters {
      var parameters = Parameters()
      change(&parameters)
      return parameters
    }
    let asDefault: [(String, Parameters)] = [
      ("slopeWindow NaN", set { $0.slopeWindow = .nan }),
      ("slopeWindow ∞", set { $0.slopeWindow = .infinity }),
      ("slopeWindow 1e19", set { $0.slopeWindow = 1e19 }),
      ("slopeWindow 0", set { $0.slopeWindow = 0 }),
      ("binDuration NaN", set { $0.binDuration = .nan }),
      ("floorHeight NaN", set { $0.floorHeight = .nan }),
      ("floorMargin NaN", set { $0.floorMargin = .nan }),
      ("settleDuration NaN", set { $0.settleDuration = .nan }),
      ("walkingGap NaN", set { $0.walkingGap = .nan }),
      ("walkedFraction NaN", set { $0.walkedFraction = .nan }),
      ("settledSlope NaN", set { $0.settledSlope = .nan }),
      ("minimumFloorChange NaN", set { $0.minimumFloorChange = .nan }),
      ("lateStepAllowance NaN", set { $0.lateStepAllowance = .nan }),
      ("lateStepAllowance −∞", set { $0.lateStepAllowance = -.infinity }),
      ("lateStepAllowance ∞", set { $0.lateStepAllowance = .infinity }),
    ]
    let halfMetreFloors: [(String, Parameters)] = [
      ("floorHeight 0", set { $0.floorHeight = 0 }),
      ("floorHeight -1", set { $0.floorHeight = -1 }),
      ("floorHeight 1e-9", set { $0.floorHeight = 1e-9 }),
      (
        "floorHeight 0, floorMargin ∞",
        set {
          $0.floorHeight = 0
          $0.floorMargin = .infinity
        }
      ),
    ]
    func stairs(_ parameters: Parameters) -> FloorCounter {
      var counter = FloorCounter(parameters: parameters)
      Self.walkOnTheLevel(&counter, from: 0, to: 20, at: 0)
      Self.climb(&counter, from: 20, heights: 0...6)
      return counter
    }
    for (name, parameters) in asDefault {
      let counter = stairs(parameters)
      XCTAssertEqual(counter.floorsAscended, 2, name)
      XCTAssertEqual(counter.floorsDescended, 0, name)
    }
    for (name, parameters) in halfMetreFloors {
      let counter = stairs(parameters)
      XCTAssertTrue(
        (10...12).contains(counter.floorsAscended), "\(name): \(counter.floorsAscended)")
      XCTAssertEqual(counter.floorsDescended, 0, name)
    }
  }
}
