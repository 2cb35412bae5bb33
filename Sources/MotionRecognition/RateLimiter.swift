// SPDX-License-Identifier: Apache-2.0

/// Lets an action through at most once per interval ("at most once per second"), on the inputs'
/// own clock.
///
/// Use it to keep a gesture from firing repeatedly while it rings out, or to throttle a readout.
/// It never sleeps: it only answers whether a timestamp may pass.
public struct RateLimiter: Sendable, Hashable {
  /// The shortest time between two allowed actions, seconds. Default 1 s.
  public var minimumInterval: Double
  /// The timestamp of the last allowed action, or `nil` if none yet.
  public private(set) var lastAllowed: Double?

  /// Creates a limiter that allows one action per `minimumInterval` seconds (default 1 s).
  public init(minimumInterval: Double = 1) {
    self.minimumInterval = minimumInterval
  }

  /// Whether an action at `timestamp` may happen; if so, it is recorded as the last one.
  public mutating func allow(at timestamp: Double) -> Bool {
    if let last = lastAllowed, timestamp - last < minimumInterval, timestamp >= last {
      return false
    }
    lastAllowed = timestamp
    return true
  }

  /// Forgets the last action.
  public mutating func reset() {
    lastAllowed = nil
  }
}
