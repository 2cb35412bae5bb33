// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Recognises shaking, reported like UIKit's motion events: began, then ended or cancelled.
///
/// A shake is a run of strong jolts of user acceleration that reverse direction at a hand's pace.
/// A *jolt* is a lobe of user acceleration stronger than ``Parameters/joltThreshold`` (1.2 g); a
/// *reversal* is a jolt pointing more than 120° away from the previous one and
/// ``Parameters/minimumInterval`` (0.05 s) to ``Parameters/maximumInterval`` (0.25 s) after it,
/// i.e. a back-and-forth at 2–10 Hz. The defaults were set on BROAD's fast rotation and
/// translation trials, whose vigorous movements are not shakes: lower thresholds or longer
/// intervals count several of them per ten minutes.
/// The shake begins at the ``Parameters/requiredReversals``-th (3rd) reversal in a row, ends once
/// no jolt has occurred for ``Parameters/quietTime`` (0.4 s), and is cancelled if it goes on longer
/// than ``Parameters/maximumDuration`` (3 s); after a cancellation nothing new begins until the
/// device has been quiet for ``Parameters/quietTime``.
///
/// User acceleration comes from ``MotionInput/userAcceleration`` when present, otherwise from a
/// ``GravitySeparator``. Single taps and knocks are too short and do not reverse at a hand's
/// pace, so they do not count.
///
/// A timestamp more than a second earlier than the latest one starts a new timeline (a clock that
/// restarted lower, e.g. a replay restarted by the daemon): the jolts so far are forgotten, and a
/// shake in progress (or the quiet wait after a cancellation) is timed from the jump, so it ends
/// with `.ended` after ``Parameters/quietTime`` of quiet on the new clock instead of staying on
/// until the new clock passes the old one.
public struct ShakeDetector: MotionEventDetector {
  /// A shake's lifecycle stage, as in `UIResponder.motionBegan/Ended/Cancelled`.
  public enum Phase: Sendable, Hashable {
    case began, ended, cancelled
  }

  /// One stage of a shake.
  public struct Event: Sendable, Hashable {
    /// Which stage.
    public var phase: Phase
    /// When the stage was recognised, seconds on the input's clock.
    public var timestamp: Double
  }

  /// The detector's tuning, in g and seconds.
  public struct Parameters: Sendable, Hashable {
    /// User acceleration that counts as a jolt, g. Default 1.2 g.
    public var joltThreshold: Double
    /// Consecutive reversals needed to begin a shake. Default 3.
    public var requiredReversals: Int
    /// Shortest time between the peaks of two reversing jolts, seconds. Default 0.05 s.
    public var minimumInterval: Double
    /// Longest time between the peaks of two reversing jolts, seconds. Default 0.25 s.
    public var maximumInterval: Double
    /// Time without jolts that ends a shake, seconds. Default 0.4 s.
    public var quietTime: Double
    /// A shake lasting longer than this is cancelled, seconds. Default 3 s.
    public var maximumDuration: Double

    /// Creates parameters; see the properties for units and defaults.
    public init(
      joltThreshold: Double = 1.2, requiredReversals: Int = 3, minimumInterval: Double = 0.05,
      maximumInterval: Double = 0.25, quietTime: Double = 0.4, maximumDuration: Double = 3
    ) {
      self.joltThreshold = joltThreshold
      self.requiredReversals = requiredReversals
      self.minimumInterval = minimumInterval
      self.maximumInterval = maximumInterval
      self.quietTime = quietTime
      self.maximumDuration = maximumDuration
    }

    /// The defaults.
    public static let `default` = Parameters()
  }

  private enum Stage: Sendable, Hashable {
    case idle
    case shaking(since: Double)
    case suppressed
  }

  /// The tuning; change it at any time.
  public var parameters: Parameters
  private var separator = GravitySeparator()
  private var stage = Stage.idle
  private var lobePeak: SIMD3<Double>?
  private var lobePeakTime = 0.0
  private var lastJolt: (direction: SIMD3<Double>, time: Double)?
  private var reversals = 0
  private var lastActiveTime = -Double.infinity
  private var timeline = TimelineWatch()

  /// Creates a detector with the given parameters (default ``Parameters/default``).
  public init(parameters: Parameters = .default) {
    self.parameters = parameters
  }

  /// Whether a shake is in progress.
  public var isShaking: Bool {
    if case .shaking = stage { return true }
    return false
  }

  public mutating func reset() {
    separator.reset()
    stage = .idle
    lobePeak = nil
    lastJolt = nil
    reversals = 0
    lastActiveTime = -.infinity
    timeline.reset()
  }

  public mutating func update(_ input: MotionInput) -> Event? {
    let t = input.timestamp
    if timeline.startsNewTimeline(at: t) { startNewTimeline(at: t) }
    let user = separator.separate(input).user
    trackLobes(user, at: t)

    switch stage {
    case .idle:
      if reversals >= parameters.requiredReversals {
        stage = .shaking(since: t)
        return Event(phase: .began, timestamp: t)
      }
    case .shaking(let since):
      if t - lastActiveTime > parameters.quietTime {
        stage = .idle
        reversals = 0
        return Event(phase: .ended, timestamp: t)
      }
      if t - since > parameters.maximumDuration {
        stage = .suppressed
        return Event(phase: .cancelled, timestamp: t)
      }
    case .suppressed:
      if t - lastActiveTime > parameters.quietTime {
        stage = .idle
        reversals = 0
      }
    }
    return nil
  }

  /// Splits the user acceleration into lobes and counts reversing jolts.
  /// Moves the timing state onto a new timeline that starts at `t` (see the type's
  /// documentation): the jolts of the old timeline are forgotten, and a shake in progress (or a
  /// suppression) carries on as if the last jolt had been at `t`, so it ends after
  /// ``Parameters/quietTime`` of quiet on the new clock, with its `.ended`, and is cancelled
  /// ``Parameters/maximumDuration`` after `t` if it goes on.
  private mutating func startNewTimeline(at t: Double) {
    lobePeak = nil
    lastJolt = nil
    reversals = 0
    switch stage {
    case .idle:
      lastActiveTime = -.infinity
    case .shaking:
      stage = .shaking(since: t)
      lastActiveTime = t
    case .suppressed:
      lastActiveTime = t
    }
  }

  private mutating func trackLobes(_ user: SIMD3<Double>, at t: Double) {
    let magnitude = user.length
    let threshold = parameters.joltThreshold
    if magnitude > threshold { lastActiveTime = t }
    if let peak = lobePeak {
      // A lobe ends when the acceleration fades (hysteresis at half the threshold) or turns round.
      if magnitude < 0.5 * threshold || user.dot(peak) < 0 {
        registerJolt(peak, at: lobePeakTime)
        lobePeak = nil
      } else if magnitude > peak.length {
        lobePeak = user
        lobePeakTime = t
      }
    }
    if lobePeak == nil, magnitude > threshold {
      lobePeak = user
      lobePeakTime = t
    }
  }

  private mutating func registerJolt(_ peak: SIMD3<Double>, at time: Double) {
    let direction = peak.normalized
    if let last = lastJolt {
      let interval = time - last.time
      if interval > parameters.maximumInterval {
        reversals = 0
      } else if interval >= parameters.minimumInterval, direction.dot(last.direction) < -0.5 {
        reversals += 1
      }
    }
    lastJolt = (direction, time)
  }
}
