// SPDX-License-Identifier: Apache-2.0

/// Pairs Apple's gravity, logged at its device-motion instants, with an estimator's gravity
/// updates on the same clock, and collects the angle between the two directions.
///
/// For recordings whose sensors and device motion each have their own timestamps (SensorLog
/// logs one group per sensor, Core Motion's device motion among them): each of Apple's instants
/// is compared with the update nearest to it in time, if one lies within ``tolerance`` seconds,
/// and is counted as unmatched otherwise. Both sides must arrive in time order; Apple's instants
/// may run ahead of the updates (a replay reads the file before its estimator reaches the same
/// time), never the other way round by more than the tolerance.
///
/// Memory holds one angle per matched instant (the quantiles are exact) and the instants not yet
/// reached by an update.
public struct GravityAgreementMatcher: Sendable {
  /// The furthest apart in time (s) an instant of Apple's and an update may be to be compared.
  public let tolerance: Double
  /// Apple's instants not yet passed by an update: times (s) and gravity directions.
  private var waiting: [(time: Double, gravity: SIMD3<Double>)] = []
  private var waitingStart = 0
  /// The latest update so far.
  private var previous: (time: Double, gravity: SIMD3<Double>)?
  private var angles: [Double] = []
  /// Apple's instants with no update within ``tolerance``.
  public private(set) var unmatchedCount = 0

  /// A matcher that compares instants at most `tolerance` seconds from an update (default 25 ms:
  /// half a period at 20 Hz, beyond any offset between the gyroscope's and device motion's
  /// instants at phone rates).
  public init(tolerance: Double = 0.025) {
    self.tolerance = tolerance.isFinite && tolerance >= 0 ? tolerance : 0.025
  }

  /// Instants of Apple's compared so far.
  public var matchedCount: Int { angles.count }

  /// Adds Apple's gravity (any length; its direction counts) at `time`, seconds.
  public mutating func appendApple(time: Double, gravity: SIMD3<Double>) {
    guard time.isFinite, gravity.isFinite, gravity.lengthSquared > 1e-18 else {
      unmatchedCount += 1
      return
    }
    waiting.append((time, gravity))
  }

  /// Adds the estimator's gravity (any length) at `time`, seconds, and compares it with the
  /// instants of Apple's it has passed.
  public mutating func appendEstimate(time: Double, gravity: SIMD3<Double>) {
    guard time.isFinite, gravity.isFinite, gravity.lengthSquared > 1e-18 else { return }
    while waitingStart < waiting.count, waiting[waitingStart].time <= time {
      let apple = waiting[waitingStart]
      waitingStart += 1
      // The nearer of the update before the instant and this one.
      var best = (time: time, gravity: gravity)
      if let previous, apple.time - previous.time < time - apple.time { best = previous }
      compare(apple, with: best)
    }
    previous = (time, gravity)
    if waitingStart > 1_024, waitingStart * 2 > waiting.count {
      waiting.removeFirst(waitingStart)
      waitingStart = 0
    }
  }

  /// Compares the instants left (after the last update) with the last update, and returns the
  /// trial's figures; `nil` when no instant could be compared.
  public mutating func finish(name: String, skippedRows: Int = 0) -> FusionAppleAgreement.Trial? {
    while waitingStart < waiting.count {
      let apple = waiting[waitingStart]
      waitingStart += 1
      if let previous {
        compare(apple, with: previous)
      } else {
        unmatchedCount += 1
      }
    }
    guard !angles.isEmpty else { return nil }
    angles.sort()
    return FusionAppleAgreement.Trial(
      name: name, median: FusionAppleAgreement.quantile(angles, 0.5),
      p95: FusionAppleAgreement.quantile(angles, 0.95), count: angles.count,
      skippedRows: skippedRows, unmatchedInstants: unmatchedCount)
  }

  private mutating func compare(
    _ apple: (time: Double, gravity: SIMD3<Double>),
    with estimate: (time: Double, gravity: SIMD3<Double>)
  ) {
    // Too far apart in time, or a direction too long to compare (a cell of 1e200): counted.
    guard abs(apple.time - estimate.time) <= tolerance,
      let angle = CentredGravityReference.angle(apple.gravity, estimate.gravity)
    else {
      unmatchedCount += 1
      return
    }
    angles.append(angle)
  }
}
