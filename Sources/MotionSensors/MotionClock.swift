// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Seconds since the machine booted, the clock of `CMLogItem.timestamp` for live sources.
///
/// On Linux this is `CLOCK_BOOTTIME` (it keeps counting during suspend, like the clock Apple
/// documents); elsewhere the process's monotonic uptime.
public enum BootClock {
  /// The current time in seconds since boot.
  public static var now: Double {
    #if os(Linux)
      var ts = timespec()
      clock_gettime(CLOCK_BOOTTIME, &ts)
      return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    #else
      return ProcessInfo.processInfo.systemUptime
    #endif
  }
}

/// How a ``StreamPlayer`` paces a stream.
public enum Pacing: Sendable {
  /// In step with the wall clock, `speed` times faster than recorded (1 = real time).
  case realTime(speed: Double)
  /// As fast as the subscribers consume, with no waiting.
  case asFastAsPossible
  /// Driven by a ``VirtualClock``: samples are delivered synchronously inside
  /// ``VirtualClock/advance(by:)`` (scaled by `speed`). Tests use this; nothing sleeps.
  case virtual(VirtualClock, speed: Double = 1)
}

/// A clock that only moves when told to. Observers run synchronously, on the caller's thread,
/// inside ``advance(by:)`` and ``advance(to:)``.
public final class VirtualClock: Sendable {
  private struct State {
    var now: Double
    var observers: [UInt64: @Sendable (Double) -> Void] = [:]
    var nextToken: UInt64 = 0
  }

  private let state: Locked<State>

  /// Creates a clock reading `start` seconds.
  public init(start: Double = 0) {
    state = Locked(State(now: start))
  }

  /// The current reading in seconds.
  public var now: Double { state.withLock { $0.now } }

  /// Moves the clock forward by `seconds` (≥ 0) and lets every observer catch up.
  public func advance(by seconds: Double) {
    precondition(seconds >= 0, "VirtualClock.advance(by:) needs a non-negative duration")
    advance(to: now + seconds)
  }

  /// Moves the clock to `time` (never backwards) and lets every observer catch up.
  public func advance(to time: Double) {
    let observers = state.withLock { s -> [@Sendable (Double) -> Void] in
      s.now = Swift.max(s.now, time)
      return Array(s.observers.values)
    }
    let reading = now
    for observer in observers { observer(reading) }
  }

  /// Registers a callback run with the new reading after every advance; returns a token for
  /// ``removeObserver(_:)``.
  public func addObserver(_ observer: @escaping @Sendable (Double) -> Void) -> UInt64 {
    state.withLock { s in
      s.nextToken += 1
      s.observers[s.nextToken] = observer
      return s.nextToken
    }
  }

  /// Removes an observer.
  public func removeObserver(_ token: UInt64) {
    state.withLock { _ = $0.observers.removeValue(forKey: token) }
  }
}
