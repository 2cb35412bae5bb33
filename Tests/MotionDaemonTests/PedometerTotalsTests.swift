// SPDX-License-Identifier: Apache-2.0

import Testing

@_spi(Benchmarks) @testable import MotionDaemon

/// The per-minute pro-rata rule of the daemon's pedometer answers.
@Suite struct PedometerTotalsTests {
  /// Minute rows: 60 steps in the minute starting at 600 s, 30 in the current one (from 660 s).
  func rows() -> [Int64: HistoryBatch.StepDelta] {
    var past = HistoryBatch.StepDelta()
    past.steps = 60
    past.distance = 42
    var current = HistoryBatch.StepDelta()
    current.steps = 30
    current.distance = 21
    current.floorsAscended = 1
    return [600: past, 660: current]
  }

  @Test func aRangeEndingNowCountsAllOfTheCurrentMinute() {
    // 15 s into the current minute: its 30 steps all happened in [660, 675].
    let totals = HistoryBatch.totals(of: rows(), from: 0, to: 675, now: 675)
    #expect(totals.steps == 90)
    #expect(totals.floorsAscended == 1)
    #expect(abs(totals.distance - 63) < 1e-9)
  }

  @Test func partialMinutesCountOverTheirElapsedPart() {
    // Half of the past minute (pro rata over 60 s); a third of the current one's elapsed 15 s.
    let totals = HistoryBatch.totals(of: rows(), from: 630, to: 665, now: 675)
    #expect(totals.steps == 30 + 10)
    #expect(abs(totals.distance - (21 + 7)) < 1e-9)
    // Outside every row: nothing; a reversed range: nothing.
    #expect(HistoryBatch.totals(of: rows(), from: 800, to: 900, now: 900).steps == 0)
    #expect(HistoryBatch.totals(of: rows(), from: 700, to: 600, now: 900).steps == 0)
  }

  @Test func aMinuteThatHasJustBegunDividesByItsFirstMillisecond() {
    // now == the current minute's start, or a clock stepped back before it: no division by zero,
    // and a range reaching past now counts all of its steps.
    let totals = HistoryBatch.totals(of: rows(), from: 0, to: 700, now: 660)
    #expect(totals.steps == 90)
    let earlier = HistoryBatch.totals(of: rows(), from: 0, to: 700, now: 650)
    #expect(earlier.steps == 90)
  }
}
