// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Classifies the device's physical orientation from gravity, with hysteresis and dead zones so
/// the result does not flicker near the 45° boundaries.
///
/// Feed it gravity in g with Core Motion's sign (`CMDeviceMotion.gravity`, or accelerometer
/// readings, ideally low-passed). The rules, with the defaults of ``Parameters``:
///
/// - **Dead zones.** A new orientation is entered only when the gravity direction lies at least
///   ``Parameters/enterMargin`` (5°) inside its region, i.e. in the plane of two axes within 40° of
///   the axis. The current orientation is kept until gravity lies more than
///   ``Parameters/exitMargin`` (5°) inside a neighbour's region (beyond 50° from its own axis). In
///   between, the previous result stands; starting there, the result is
///   ``DeviceOrientation/unknown``. The band is 10° wide in all: wider than the jitter of a
///   hand-held reading, and narrow enough that the switch happens before gravity is 10° past the
///   boundary (wider bands, such as 35°/55°, report every change late and disagreed with ground
///   truth on ~4 % of clear-cut samples of BROAD's slow rotations).
/// - **Settling.** A change (including to unknown) is committed only after the new class has held
///   for ``Parameters/settlingTime`` (0.01 s: at least two consecutive samples at 100 Hz), so a
///   single stray sample cannot flip it. Longer settling mostly delays real changes: on BROAD's
///   fast rotations 0.03 s cost 2–5 % agreement, against almost nothing for 0.01 s.
/// - **Free fall.** Gravity shorter than ``Parameters/freeFallThreshold`` (0.35 g) gives
///   ``DeviceOrientation/unknown`` at once.
/// - **Shaking.** Readings whose length is more than ``Parameters/magnitudeTolerance`` (0.4 g) away
///   from 1 g do not change the class; if that lasts ``Parameters/unsteadyTimeout`` (0.5 s), the
///   result becomes unknown until the device is steady again.
/// - **New timeline.** A timestamp more than a second earlier than the pending candidate's or the
///   unsteady readings' start (a clock that restarted lower) restarts those timings from it and
///   keeps the committed orientation.
///
/// Parameters (what the user sets) and ``State`` (what evolves) are separate values, so a
/// classifier can be snapshotted or reset without losing its configuration.
public struct OrientationClassifier: Sendable {
  /// The classifier's tuning, in radians, g and seconds.
  public struct Parameters: Sendable, Hashable {
    /// How far inside a class's region gravity must be to enter it, radians. Default 5°.
    public var enterMargin: Double
    /// How far inside a neighbour's region gravity may stray before the current class is left,
    /// radians. Default 5°.
    public var exitMargin: Double
    /// How long a new result must hold before it is committed, seconds. Default 0.01 s.
    public var settlingTime: Double
    /// Gravity shorter than this (g) means free fall: the result is unknown. Default 0.35 g.
    public var freeFallThreshold: Double
    /// How far the reading's length may stray from 1 g before it is treated as unsteady. Default
    /// 0.4 g.
    public var magnitudeTolerance: Double
    /// How long unsteady readings may last before the result becomes unknown, seconds. Default 0.5
    /// s.
    public var unsteadyTimeout: Double

    /// Creates parameters; see the properties for units and defaults.
    public init(
      enterMargin: Double = 5 * Units.radiansPerDegree,
      exitMargin: Double = 5 * Units.radiansPerDegree,
      settlingTime: Double = 0.01,
      freeFallThreshold: Double = 0.35,
      magnitudeTolerance: Double = 0.4,
      unsteadyTimeout: Double = 0.5
    ) {
      self.enterMargin = enterMargin
      self.exitMargin = exitMargin
      self.settlingTime = settlingTime
      self.freeFallThreshold = freeFallThreshold
      self.magnitudeTolerance = magnitudeTolerance
      self.unsteadyTimeout = unsteadyTimeout
    }

    /// The defaults.
    public static let `default` = Parameters()
  }

  /// What evolves from sample to sample.
  public struct State: Sendable, Hashable {
    /// The committed orientation.
    public var orientation: DeviceOrientation = .unknown
    /// The result waiting to be committed, and since when (seconds).
    public var candidate: DeviceOrientation?
    /// The time the candidate first appeared, seconds.
    public var candidateSince: Double = 0
    /// The time unsteady readings began, seconds, or `nil` while steady.
    public var unsteadySince: Double?

    /// The initial state: unknown, nothing pending.
    public init() {}
  }

  /// The tuning; change it at any time.
  public var parameters: Parameters
  /// The evolving state.
  public private(set) var state = State()

  /// The committed orientation.
  public var orientation: DeviceOrientation { state.orientation }

  /// Creates a classifier with the given parameters (default ``Parameters/default``).
  public init(parameters: Parameters = .default) {
    self.parameters = parameters
  }

  /// Forgets the state; the orientation becomes unknown.
  public mutating func reset() {
    state = State()
  }

  /// Classifies one gravity reading (g, Core Motion's sign) taken at `timestamp` seconds and
  /// returns the committed orientation.
  @discardableResult
  public mutating func update(gravity: SIMD3<Double>, timestamp: Double) -> DeviceOrientation {
    let magnitude = gravity.length
    guard magnitude.isFinite, magnitude >= parameters.freeFallThreshold else {
      state.candidate = nil
      state.unsteadySince = nil
      state.orientation = .unknown
      return .unknown
    }
    startNewTimelineIfNeeded(at: timestamp)
    if Swift.abs(magnitude - 1) > parameters.magnitudeTolerance {
      // A jolt or a shake: the direction is not gravity's, so it must not move the class.
      let since = state.unsteadySince ?? timestamp
      state.unsteadySince = since
      state.candidate = nil
      if timestamp - since >= parameters.unsteadyTimeout {
        state.orientation = .unknown
      }
      return state.orientation
    }
    state.unsteadySince = nil

    let target = classify(gravity)
    if target == state.orientation {
      state.candidate = nil
      return state.orientation
    }
    if state.candidate != target {
      state.candidate = target
      state.candidateSince = timestamp
    }
    if timestamp - state.candidateSince >= parameters.settlingTime {
      state.orientation = target
      state.candidate = nil
    }
    return state.orientation
  }

  /// Forgets the times of a pending candidate and of unsteady readings when `timestamp` is more than
  /// a second earlier than them: a new timeline (a clock that restarted lower, e.g. a replay
  /// restarted by the daemon). Timed against the old clock, the candidate would not commit, nor
  /// would unsteadiness time out, until the new clock passed the old one, up to an hour later.
  /// Both start again from `timestamp`. The committed orientation is kept: a new timeline is not a
  /// new pose. (Those two times are the only ones the classifier keeps, so they are what is
  /// compared; an earlier time by at most a second is out-of-order jitter and only waits a little.)
  private mutating func startNewTimelineIfNeeded(at timestamp: Double) {
    if state.candidate != nil,
      TimelineWatch.isNewTimeline(timestamp, after: state.candidateSince)
    {
      state.candidate = nil
    }
    if let since = state.unsteadySince, TimelineWatch.isNewTimeline(timestamp, after: since) {
      state.unsteadySince = nil
    }
  }

  /// The class the dead-zone rules pick for `gravity`, before settling.
  private func classify(_ gravity: SIMD3<Double>) -> DeviceOrientation {
    let current = state.orientation
    if current != .unknown, current.boundaryMargin(gravity: gravity) >= -parameters.exitMargin {
      return current
    }
    let nearest = DeviceOrientation.nearest(toGravity: gravity)
    if nearest.boundaryMargin(gravity: gravity) >= parameters.enterMargin {
      return nearest
    }
    return .unknown
  }
}
