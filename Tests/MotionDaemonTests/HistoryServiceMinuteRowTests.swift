// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import MotionDaemon

/// The minute row the daemon's history files a step or a floor under: the minute it happened,
/// which can be before the sample that counted it (steps given back by the riding gate, floors
/// that late steps showed to be walked), within bounds, and never a trap on hostile ages.
@Suite struct HistoryServiceMinuteRowTests {
  /// 2026-11-28 08:00:30 UTC.
  let date = 1_795_852_830.0

  @Test func aStepIsFiledUnderItsOwnMinute() {
    let minute = Int64(1_795_852_800)
    #expect(HistoryService.minuteRow(date: date, age: 0, longestAge: 900) == minute)
    #expect(HistoryService.minuteRow(date: date, age: 30, longestAge: 900) == minute)
    #expect(HistoryService.minuteRow(date: date, age: 30.5, longestAge: 900) == minute - 60)
    // Given back by a hold too short to be a ride, 65 s old, two seconds into a minute: two
    // minutes back. (Until 2026-11-29 a step's age was bounded by 60 s, and such a step went
    // under the minute after its own.)
    #expect(
      HistoryService.minuteRow(
        date: Double(minute) + 2, age: 65, longestAge: HistoryService.longestStepAge)
        == minute - 120)
  }

  @Test func agesAreBounded() {
    let minute = Int64(1_795_852_800)
    // A step far older than the gate can hold one (a source clock that jumped forward) goes no
    // further back than 30 minutes.
    #expect(
      HistoryService.minuteRow(date: date, age: 86_400, longestAge: HistoryService.longestStepAge)
        == minute - 1_800)
    // Floors after a gap of eight days go back seven: the history's span.
    #expect(
      HistoryService.minuteRow(
        date: date, age: 8 * 86_400, longestAge: HistoryService.longestFloorAge)
        == minute - 7 * 86_400)
    #expect(
      HistoryService.minuteRow(
        date: date, age: 86_400 + 40, longestAge: HistoryService.longestFloorAge)
        == minute - 86_400 - 60)
  }

  @Test func hostileAgesAndDatesDoNotTrap() {
    let minute = Int64(1_795_852_800)
    for age in [-1e300, -5, .nan, .infinity, -.infinity] {
      #expect(HistoryService.minuteRow(date: date, age: age, longestAge: 900) == minute, "\(age)")
    }
    #expect(HistoryService.minuteRow(date: date, age: 1e300, longestAge: 900) == minute - 900)
    for hostileDate in [Double.nan, .infinity, -.infinity, 1e300] {
      #expect(HistoryService.minuteRow(date: hostileDate, age: 0, longestAge: 900) == 0)
    }
  }
}
