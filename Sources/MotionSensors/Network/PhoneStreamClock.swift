// SPDX-License-Identifier: Apache-2.0

/// Which clock the timestamps of a phone stream's samples are on.
public enum PhoneStreamClock: String, Sendable, Equatable, CaseIterable {
  /// This machine's boot clock (``BootClock``), like hardware sources and `CMLogItem.timestamp`:
  /// the phone's time plus an offset estimated from when readings arrive (the default).
  ///
  /// The offset is set from the first readings (arrival time minus the newest reading's phone
  /// time, so it includes the network and batching delay) and afterwards only moves forward, when
  /// readings lag by more than ``StreamClockMapping/catchUpThreshold`` (after a phyphox pause, say).
  /// It never moves back, so timestamps keep increasing; intervals between samples are the phone's.
  case receiverBoot = "boot"
  /// The phone's own clock as sent (epoch time, the phone's boot time, or experiment time).
  case phone = "phone"
}

/// Maps phone-clock times to the receiving machine's boot clock (see ``PhoneStreamClock``).
struct StreamClockMapping {
  /// The clock samples are delivered on.
  let clock: PhoneStreamClock
  /// How far (seconds) readings may lag the current offset before it is moved forward; default 2 s,
  /// above Sensor Logger's usual one-second batching delay.
  var catchUpThreshold = 2.0
  /// Seconds added to phone time; `nil` until the first reading (or always for ``PhoneStreamClock/phone``).
  private(set) var offset: Double?

  init(clock: PhoneStreamClock) {
    self.clock = clock
  }

  /// Notes that readings up to phone time `newestStreamTime` arrived at boot-clock time `arrival`.
  mutating func observe(newestStreamTime: Double, arrival: Double) {
    guard clock == .receiverBoot, newestStreamTime.isFinite else { return }
    let candidate = arrival - newestStreamTime
    if let offset, candidate <= offset + catchUpThreshold { return }
    offset = candidate
  }

  /// The delivered timestamp for phone time `streamTime`.
  func map(_ streamTime: Double) -> Double {
    streamTime + (offset ?? 0)
  }
}
