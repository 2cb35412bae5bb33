// SPDX-License-Identifier: Apache-2.0

/// The failed `accept` calls of one episode and the pause before the next attempt: short at first
/// (a descriptor is often freed at once), doubling up to ``maximumPause`` so that a lasting
/// shortage costs a wake-up per second, not a busy loop.
struct AcceptFailures {
  static let firstPause = 0.01
  static let maximumPause = 1.0

  private(set) var count = 0
  private var pause = firstPause

  /// Counts one failure; returns how long to wait before accepting again, s.
  mutating func note() -> Double {
    count += 1
    defer { pause = min(pause * 2, Self.maximumPause) }
    return pause
  }
}
