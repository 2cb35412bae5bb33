// SPDX-License-Identifier: Apache-2.0

/// Turns a sample stream at any rate into one at a lower, uniform rate by averaging the samples of
/// each interval of `1 / rate` seconds, the way a phone's sensor hub delivers a low rate from a
/// fast sensor (an output filter over the interval, not a pick of one sample).
///
/// Intervals are counted from the first sample's time; each average is stamped at its interval's
/// centre. An interval's average is handed over when the first sample of a later interval arrives
/// (``add(time:value:)``), and the last one by ``finish()``. Intervals without samples (a gap in
/// the recording) give nothing: the gap stays a gap. A sample whose time is earlier than the
/// current interval closes it too (the consumer decides what to do with time going backwards).
/// Memory is constant.
package struct IntervalAverager: Sendable {
  /// Length of an interval, s.
  package let interval: Double
  /// Time of the first sample, s: interval k spans [origin + k·interval, origin + (k+1)·interval).
  private var origin: Double?
  /// The current interval's number, as a Double: times come from files, and a Double cannot trap.
  private var current = 0.0
  private var sum = SIMD3<Double>.zero
  private var count = 0
  /// Share of an interval by which a time may fall short of a boundary and still count as on it.
  private static let boundaryTolerance = 1e-9

  /// An averager to `rate` Hz; `nil` unless the rate is finite and positive.
  package init?(rate: Double) {
    guard rate.isFinite, rate > 0 else { return nil }
    interval = 1 / rate
  }

  /// Adds a sample (time in s) and returns the previous interval's average if this sample is the
  /// first of another interval. Samples with a non-finite time or value are skipped.
  package mutating func add(
    time: Double, value: SIMD3<Double>
  ) -> (time: Double, value: SIMD3<Double>)? {
    guard time.isFinite, value.x.isFinite, value.y.isFinite, value.z.isFinite else { return nil }
    guard let origin else {
      self.origin = time
      start(0, with: value)
      return nil
    }
    // A time on an interval's boundary opens that interval even when the subtraction lands a
    // rounding error below it (10.02 − 10 is 0.019999…): recordings often sit on such a grid.
    let number = ((time - origin) / interval + Self.boundaryTolerance).rounded(.down)
    guard number.isFinite else { return nil }
    guard count > 0 else {
      start(number, with: value)
      return nil
    }
    if number == current {
      sum += value
      count += 1
      return nil
    }
    let finished = average(origin: origin)
    start(number, with: value)
    return finished
  }

  /// The average of the interval still open, if it has samples; the averager is then empty (the
  /// next sample opens a new interval on the same grid).
  package mutating func finish() -> (time: Double, value: SIMD3<Double>)? {
    guard let origin, count > 0 else { return nil }
    let last = average(origin: origin)
    count = 0
    sum = .zero
    return last
  }

  private mutating func start(_ number: Double, with value: SIMD3<Double>) {
    current = number
    sum = value
    count = 1
  }

  private func average(origin: Double) -> (time: Double, value: SIMD3<Double>) {
    (origin + (current + 0.5) * interval, sum / Double(count))
  }
}
