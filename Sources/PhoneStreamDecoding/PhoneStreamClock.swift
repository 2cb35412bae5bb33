// SPDX-License-Identifier: Apache-2.0

/// Which clock the timestamps of a phone stream's samples are on.
public enum PhoneStreamClock: String, Sendable, Equatable, CaseIterable {
  /// This machine's boot clock (`BootClock`), like hardware sources and `CMLogItem.timestamp`:
  /// the phone's time plus an offset estimated from when readings arrive (the default).
  ///
  /// The offset is set from the first readings (arrival time minus the newest reading's phone time,
  /// so it includes the network and batching delay) and afterwards only moves forward, when
  /// readings lag by more than `StreamClockMapping.catchUpThreshold` (after a phyphox pause,
  /// say). It never moves back, so timestamps keep increasing; intervals between samples are the
  /// phone's.
  case receiverBoot = "boot"
  /// The phone's own clock as sent (epoch time, the phone's boot time, or experiment time).
  case phone = "phone"
}
