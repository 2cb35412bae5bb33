// SPDX-License-Identifier: Apache-2.0

extension HistoryBatch {
  /// The pedometer totals of the per-minute rows `minutes` (minute start → counts) over
  /// `[from, to]`, dates in s since 1970.
  ///
  /// A minute only partly inside the range counts pro rata, over the part of the minute that had
  /// passed at `now`: the steps of the current minute all happened before `now`, so a range
  /// ending at `now` counts them all, not the elapsed fraction of 60 s.
  package static func totals(
    of minutes: [Int64: StepDelta], from: Double, to: Double, now: Double
  ) -> StepDelta {
    var total = StepDelta()
    var steps = 0.0
    var ascended = 0.0
    var descended = 0.0
    for (minute, delta) in minutes {
      let start = Double(minute)
      // The span in which this minute's steps can lie; at least 1 ms so that a minute that has
      // just begun (or a clock step back) divides by something.
      let end = max(start + 0.001, min(start + 60, now))
      let overlap = max(0, min(to, end) - max(from, start)) / (end - start)
      guard overlap > 0 else { continue }
      let fraction = min(overlap, 1)
      steps += Double(delta.steps) * fraction
      total.distance += delta.distance * fraction
      ascended += Double(delta.floorsAscended) * fraction
      descended += Double(delta.floorsDescended) * fraction
      total.activeSeconds += delta.activeSeconds * fraction
    }
    total.steps = roundedCount(steps)
    total.floorsAscended = roundedCount(ascended)
    total.floorsDescended = roundedCount(descended)
    return total
  }

  /// `value` rounded to a count, clamped to Int64's range (NaN: 0). Sums of stored counts can
  /// reach 2^63 (Int64.max as a Double already is 2^63), where `Int64(_:)` would trap.
  package static func roundedCount(_ value: Double) -> Int64 {
    let rounded = value.rounded()
    if rounded.isNaN { return 0 }
    if rounded >= 0x1p63 { return .max }
    if rounded < -0x1p63 { return .min }
    return Int64(rounded)
  }
}
