// SPDX-License-Identifier: Apache-2.0

extension StreamPlayer {
  /// The clock reading at which the next sample is due under virtual pacing, or nil when the stream
  /// has ended or the pacing is not virtual. Reads (and keeps) the next sample from the stream.
  ///
  /// A replay that advances its virtual clock in fixed slices uses this to jump a time gap in one
  /// step instead of slicing through it (a recording with a 10⁹ s gap would otherwise take 10⁸
  /// slices).
  package func nextDueClockTime() -> Double? {
    guard case .virtual(_, let speed) = pacing, speed > 0 else { return nil }
    return withDeliveryLock {
      guard let sample = peekNextSample() else { return nil }
      return dueClockTime(of: sample, speed: speed)
    }
  }
}
