// SPDX-License-Identifier: Apache-2.0

/// Maps phone-clock times to the receiving machine's boot clock (see ``PhoneStreamClock``).
///
/// The offset is learnt from the readings themselves, which come from the network. With
/// ``maximumDistance`` set, a reading whose mapped time lies further than that from its arrival
/// is implausible (see ``isPlausible(_:arrival:)``), so a forged reading cannot move the mapping
/// by years; ``reset()`` starts a fresh mapping when the stream's clock really changed.
package struct StreamClockMapping: Sendable {
  /// The clock samples are delivered on.
  package let clock: PhoneStreamClock
  /// How far (seconds) readings may lag the current offset before it is moved forward; default 2 s,
  /// above Sensor Logger's usual one-second batching delay.
  package var catchUpThreshold = 2.0
  /// Seconds added to phone time; `nil` until the first reading (or always for
  /// ``PhoneStreamClock/phone``).
  package private(set) var offset: Double?
  /// How far (seconds) a reading's mapped time may lie from its arrival, either way; `nil` (the
  /// default) accepts any. Only for clocks that never pause: phyphox's experiment time stops
  /// during a pause, so its readings legitimately lag a stale offset by the length of the pause.
  package var maximumDistance: Double?

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

  /// Whether phone time `streamTime`, arriving at boot-clock time `arrival`, fits the current
  /// mapping (always, before the first reading, without ``maximumDistance`` or on the phone's
  /// clock).
  package func isPlausible(_ streamTime: Double, arrival: Double) -> Bool {
    guard clock == .receiverBoot, let maximumDistance, let offset else { return true }
    return abs(streamTime + offset - arrival) <= maximumDistance
  }

  /// Forgets the offset: the next reading starts a fresh mapping.
  package mutating func reset() {
    offset = nil
  }

  /// The delivered timestamp for phone time `streamTime`.
  package func map(_ streamTime: Double) -> Double {
    streamTime + (offset ?? 0)
  }
}
