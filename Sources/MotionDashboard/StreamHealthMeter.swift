// SPDX-License-Identifier: Apache-2.0

/// Measures one sensor stream's rate and gaps from its sample timestamps.
///
/// The rate is the number of samples in the last completed window of source time, divided by
/// its length; a gap longer than ``gapFactor`` nominal periods counts the samples that should have
/// been in it as missed (the stream's "dropped samples").
package struct StreamHealthMeter: Sendable, Equatable {
  /// The window over which the rate is counted, s of source time.
  package static let window = 1.0
  /// A gap longer than this many typical periods counts as missed samples.
  package static let gapFactor = 1.8

  /// Samples per second over the last completed window, or `nil` before the first one.
  package private(set) var rate: Double?
  /// Samples counted as missed since the start.
  package private(set) var missed = 0
  /// Samples seen since the start.
  package private(set) var total = 0

  private var windowStart: Double?
  private var windowCount = 0
  private var lastTime: Double?

  package init() {}

  package mutating func note(time: Double) {
    guard time.isFinite else { return }
    total += 1
    if let lastTime, let rate, rate > 0 {
      let period = 1 / rate
      let gap = time - lastTime
      if gap > Self.gapFactor * period {
        // Bounded: a clock jump of hours must not count billions of samples.
        let estimate = min(gap / period - 1, 1_000_000).rounded()
        if estimate >= 1 { missed += Int(estimate) }
      }
    }
    lastTime = time
    guard let start = windowStart, time >= start else {
      windowStart = time
      windowCount = 1
      return
    }
    windowCount += 1
    let elapsed = time - start
    if elapsed >= Self.window {
      // windowCount − 1 periods fit between the first and the last sample of the window.
      rate = Double(windowCount - 1) / elapsed
      windowStart = time
      windowCount = 1
    }
  }
}
