// SPDX-License-Identifier: Apache-2.0

/// Maps phone-clock times to the receiving machine's boot clock (see ``PhoneStreamClock``).
package struct StreamClockMapping: Sendable {
  /// The clock samples are delivered on.
  package let clock: PhoneStreamClock
  /// How far (seconds) readings may lag the current offset before it is moved forward; default 2 s,
  /// above Sensor Logger's usual one-second batching delay.
  package var catchUpThreshold = 2.0
  /// Seconds added to phone time; `nil` until the first reading (or always for
  /// ``PhoneStreamClock/phone``).
  package private(set) var offset: Double?

  package init(clock: PhoneStreamClock) {
    self.clock = clock
  }

  /// Notes that readings up to phone time `newestStreamTime` arrived at boot-clock time `arrival`.
  package mutating func observe(newestStreamTime: Double, arrival: Double) {
    guard clock == .receiverBoot, newestStreamTime.isFinite else { return }
    let candidate = arrival - newestStreamTime
    if let offset, candidate <= offset + catchUpThreshold { return }
    offset = candidate
  }

  /// The delivered timestamp for phone time `streamTime`.
  package func map(_ streamTime: Double) -> Double {
    streamTime + (offset ?? 0)
  }
}
