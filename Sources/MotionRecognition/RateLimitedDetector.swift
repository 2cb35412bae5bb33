// SPDX-License-Identifier: Apache-2.0

/// A detector whose events are let through at most once per interval; suppressed events are
/// dropped.
public struct RateLimitedDetector<Base: MotionEventDetector>: MotionEventDetector {
  /// The wrapped detector.
  public var base: Base
  /// The limiter applied to its events.
  public var limiter: RateLimiter

  /// Wraps `base` so that it reports at most one event per `minimumInterval` seconds (default 1 s).
  public init(_ base: Base, minimumInterval: Double = 1) {
    self.base = base
    self.limiter = RateLimiter(minimumInterval: minimumInterval)
  }

  public mutating func update(_ input: MotionInput) -> Base.Event? {
    guard let event = base.update(input) else { return nil }
    return limiter.allow(at: input.timestamp) ? event : nil
  }

  public mutating func reset() {
    base.reset()
    limiter.reset()
  }
}

extension MotionEventDetector {
  /// This detector, reporting at most one event per `minimumInterval` seconds (default 1 s).
  public func rateLimited(minimumInterval: Double = 1) -> RateLimitedDetector<Self> {
    RateLimitedDetector(self, minimumInterval: minimumInterval)
  }
}
