// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The steps and floors of the in-process history, with running totals so that any window's
/// totals take two binary searches.
///
/// Dates are kept as seconds since the reference date. Entries older than the retention (7 days
/// before the newest entry, as Apple keeps) are dropped in batches.
struct StepLedger: Sendable {
  private struct Step: Sendable {
    var date: Double
    /// When the step was reported (the sample that confirmed it, or that the riding gate gave it
    /// back at), at or after `date`: the walk's pauses are judged from it.
    var reported: Double
    var timestamp: Double
    var distance: Double
    /// Sum of `distance` up to and including this step.
    var cumulativeDistance: Double
    /// Sum of the active gaps (see ``activeGapLimit``) up to and including this step's gap to the
    /// previous step.
    var cumulativeActive: Double
    /// Cadence when this step was counted, steps/s, if known.
    var cadence: Double?
  }

  private struct Floors: Sendable {
    var date: Double
    var ascended: Int
    var descended: Int
    var cumulativeAscended: Int
    var cumulativeDescended: Int
  }

  /// Longest gap between two steps that counts as walking time, s.
  let activeGapLimit: Double
  /// How long entries are kept, s.
  let retention: Double
  private var steps: [Step] = []
  private var floors: [Floors] = []

  init(activeGapLimit: Double, retention: Double) {
    self.activeGapLimit = activeGapLimit
    self.retention = retention
  }

  /// Adds a step (dates non-decreasing), reported at `reportedDate` (`nil`: at its own date).
  mutating func append(_ record: StepRecord, cadence: Double?, reportedDate: Date? = nil) {
    let date = record.date.timeIntervalSinceReferenceDate
    let reported = Swift.max(date, reportedDate?.timeIntervalSinceReferenceDate ?? date)
    let previous = steps.last
    let gap = previous.map { date - $0.date } ?? .infinity
    let active = gap <= activeGapLimit ? gap : 0
    steps.append(
      Step(
        date: date, reported: reported, timestamp: record.timestamp, distance: record.distance,
        cumulativeDistance: (previous?.cumulativeDistance ?? 0) + record.distance,
        cumulativeActive: (previous?.cumulativeActive ?? 0) + active, cadence: cadence))
    prune(before: date - retention)
  }

  /// Adds floors walked at `record.date`. Floors may come out of date order: those that steps
  /// noted late showed to be walked are dated where their change settled, usually a minute or
  /// so before floors counted in the meantime. They are put in their place and the running
  /// totals after it are moved up (floors are few, and a late one has few floors after it).
  mutating func append(_ record: FloorRecord) {
    let date = record.date.timeIntervalSinceReferenceDate
    let index = firstIndex(in: floors, where: { $0.date > date })
    let previous = index > 0 ? floors[index - 1] : nil
    floors.insert(
      Floors(
        date: date, ascended: record.ascended, descended: record.descended,
        cumulativeAscended: (previous?.cumulativeAscended ?? 0) &+ record.ascended,
        cumulativeDescended: (previous?.cumulativeDescended ?? 0) &+ record.descended),
      at: index)
    for later in (index + 1)..<floors.count {
      floors[later].cumulativeAscended &+= record.ascended
      floors[later].cumulativeDescended &+= record.descended
    }
    prune(before: (floors.last?.date ?? date) - retention)
  }

  /// The totals of the steps and floors dated in `start ... end`; floors are `nil` unless
  /// `countsFloors`.
  ///
  /// The recent cadence and stride are those of the last step in the window while its walk had
  /// not paused by `end`, or by `observedUntil` (the latest instant the detector processed) when
  /// that is earlier: less than ``activeGapLimit`` after the step was reported, the rule of the
  /// history's pause events. Judged from the step's own date, a steady walk lost them in updates
  /// whose newest step came late (the detector confirms steps up to about 2 s after them, a
  /// limb's strides and the riding gate later still); judged at an `end` beyond what the detector
  /// has seen (an opening update ends at the wall clock's now, a lagging source is behind it),
  /// they were lost for a pause that nobody could have observed.
  ///
  /// Entries before `keptSince` are left out (they are past the retention, and only dropped when
  /// newer ones arrive); the summary's dates stay `start` and `end`.
  func summary(
    from start: Date, to end: Date, countsFloors: Bool, observedUntil: Date? = nil,
    keptSince: Date? = nil
  ) -> PedometerSummary {
    var result = PedometerSummary(startDate: start, endDate: end)
    guard start <= end else { return result }
    let a = Swift.max(
      start.timeIntervalSinceReferenceDate,
      keptSince?.timeIntervalSinceReferenceDate ?? -.infinity)
    let b = end.timeIntervalSinceReferenceDate
    let lower = firstIndex(in: steps, where: { $0.date >= a })
    let upper = firstIndex(in: steps, where: { $0.date > b })
    if lower < upper {
      let first = steps[lower]
      let last = steps[upper - 1]
      result.numberOfSteps = upper - lower
      result.distance = last.cumulativeDistance - first.cumulativeDistance + first.distance
      result.activeDuration = last.cumulativeActive - first.cumulativeActive
      let judged = Swift.min(b, observedUntil?.timeIntervalSinceReferenceDate ?? b)
      if judged - last.reported < activeGapLimit, let cadence = last.cadence {
        result.recentCadence = cadence
        result.recentStride = last.distance
      }
    }
    if countsFloors {
      let lower = firstIndex(in: floors, where: { $0.date >= a })
      let upper = firstIndex(in: floors, where: { $0.date > b })
      result.floorsAscended = 0
      result.floorsDescended = 0
      if lower < upper {
        let first = floors[lower]
        let last = floors[upper - 1]
        result.floorsAscended =
          last.cumulativeAscended &- first.cumulativeAscended &+ first.ascended
        result.floorsDescended =
          last.cumulativeDescended &- first.cumulativeDescended &+ first.descended
      }
    }
    return result
  }

  /// The number of steps kept.
  var stepCount: Int { steps.count }

  /// The first index whose element satisfies `predicate`, which must be false then true along the
  /// array (binary search); `array.count` when none does.
  private func firstIndex<Element>(in array: [Element], where predicate: (Element) -> Bool) -> Int {
    var low = 0
    var high = array.count
    while low < high {
      let middle = low + (high - low) / 2
      if predicate(array[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
  }

  /// Moves every step's and floor's date by `seconds` (the system clock was set:
  /// ``WallClockStepWatch``); their order and spacing stay.
  mutating func shiftDates(by seconds: Double) {
    for index in steps.indices {
      steps[index].date += seconds
      steps[index].reported += seconds
    }
    for index in floors.indices { floors[index].date += seconds }
  }

  /// Drops entries dated before `limit`, once they are an hour's worth older than it, so that the
  /// copying happens rarely.
  private mutating func prune(before limit: Double) {
    if let first = steps.first, first.date < limit - 3600 {
      steps.removeFirst(firstIndex(in: steps, where: { $0.date >= limit }))
    }
    if let first = floors.first, first.date < limit - 3600 {
      floors.removeFirst(firstIndex(in: floors, where: { $0.date >= limit }))
    }
  }
}
