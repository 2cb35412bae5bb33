// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Reports the direction of a sharp move (up, down, left, right, forward, back) once the move has
/// stopped.
///
/// The naive method takes the direction of the largest force. It fails whenever the device is
/// stopped harder than it was started: a move starts with a force *in* the direction of motion and
/// ends with a force *against* it, and the larger of the two wins. This detector instead follows
/// the whole move and compares its start and stop peaks: it integrates the kinematic acceleration
/// (`−userAcceleration`, because Core Motion's sign is opposite) into a velocity change over the
/// move's start, up to the moment a clear force turns against the velocity (the stop begins), and
/// takes the direction of the velocity reached then. That velocity is built by the start force
/// alone, so it points the way the device went however hard the stop is, and even when a gravity
/// estimate has swallowed part of a slow start. ``Event/startPeak`` and ``Event/stopPeak`` report
/// both forces (the stop force points against the reported direction).
///
/// A move is a stretch where kinematic acceleration exceeds ``Parameters/onsetThreshold``
/// (0.1 g), with gaps shorter than ``Parameters/quietTime`` (0.12 s); it is reported only if some
/// sample exceeds ``Parameters/triggerThreshold`` (0.3 g) and the velocity reached
/// ``Parameters/minimumSpeed`` (0.01 g·s ≈ 0.1 m/s). A move must start from rest (at least
/// ``Parameters/quietTime`` below the onset threshold), so the last swing of a shake is not
/// reported. Stretches longer than ``Parameters/maximumDuration`` (1.2 s) are not sharp moves and
/// are dropped.
///
/// A timestamp more than a second earlier than the latest one starts a new timeline (a clock that
/// restarted lower, e.g. a replay restarted by the daemon): the detector drops the move in progress
/// and forgets the refractory and quiet times, so moves on the new clock are reported at once
/// instead of being blocked until the new clock passes the old one.
public struct MovementDirectionDetector: MotionEventDetector {
  /// One move.
  public struct Event: Sendable, Hashable {
    /// When the move was recognised (after it stopped), seconds on the input's clock.
    public var timestamp: Double
    /// When the move began, seconds.
    public var startTime: Double
    /// The axis-aligned direction of travel.
    public var direction: MovementDirection
    /// The unit direction of travel in device coordinates.
    public var vector: SIMD3<Double>
    /// The largest kinematic acceleration before the stop began (the start force), g.
    public var startPeak: SIMD3<Double>
    /// The largest kinematic acceleration against the motion after it (the stop force), g;
    /// zero if the device was not stopped within the move.
    public var stopPeak: SIMD3<Double>
    /// The peak speed reached, in g·s (multiply by 9.80665 for m/s).
    public var peakSpeed: Double
  }

  /// The detector's tuning, in g and seconds.
  public struct Parameters: Sendable, Hashable {
    /// Kinematic acceleration that opens or continues a move, g. Default 0.1 g.
    public var onsetThreshold: Double
    /// Kinematic acceleration some sample of a move must exceed, g. Default 0.3 g.
    public var triggerThreshold: Double
    /// Speed a move must reach, g·s. Default 0.01 g·s (about 0.1 m/s).
    public var minimumSpeed: Double
    /// A gap below the onset threshold longer than this ends a move, seconds. Default 0.12 s.
    public var quietTime: Double
    /// Moves longer than this are dropped, seconds. Default 1.2 s.
    public var maximumDuration: Double
    /// Dead time after a reported move, seconds. Default 0.2 s.
    public var refractoryPeriod: Double

    /// Creates parameters; see the properties for units and defaults.
    public init(
      onsetThreshold: Double = 0.1, triggerThreshold: Double = 0.3, minimumSpeed: Double = 0.01,
      quietTime: Double = 0.12, maximumDuration: Double = 1.2, refractoryPeriod: Double = 0.2
    ) {
      self.onsetThreshold = onsetThreshold
      self.triggerThreshold = triggerThreshold
      self.minimumSpeed = minimumSpeed
      self.quietTime = quietTime
      self.maximumDuration = maximumDuration
      self.refractoryPeriod = refractoryPeriod
    }

    /// The defaults.
    public static let `default` = Parameters()
  }

  private struct Move: Sendable {
    var startTime: Double
    var lastActive: Double
    var lastTime: Double
    var lastAcceleration: SIMD3<Double>
    var velocity = SIMD3<Double>.zero
    var peakVelocity = SIMD3<Double>.zero
    var largest = 0.0
    var isStopping = false
    var startPeak = SIMD3<Double>.zero
    var stopPeak = SIMD3<Double>.zero
  }

  /// The tuning; change it at any time.
  public var parameters: Parameters
  private var separator = GravitySeparator()
  private var move: Move?
  private var quietUntil = -Double.infinity
  private var lastActive = -Double.infinity
  private var timeline = TimelineWatch()

  /// Creates a detector with the given parameters (default ``Parameters/default``).
  public init(parameters: Parameters = .default) {
    self.parameters = parameters
  }

  public mutating func reset() {
    separator.reset()
    move = nil
    quietUntil = -.infinity
    lastActive = -.infinity
    timeline.reset()
  }

  public mutating func update(_ input: MotionInput) -> Event? {
    let t = input.timestamp
    if timeline.startsNewTimeline(at: t) {
      // Times from the old timeline mean nothing on the new one (see the type's documentation).
      move = nil
      quietUntil = -.infinity
      lastActive = -.infinity
    }
    // Core Motion's user acceleration points against the kinematic acceleration.
    let acceleration = -separator.separate(input).user
    let magnitude = acceleration.length
    let wasActive = lastActive
    if magnitude > parameters.onsetThreshold { lastActive = t }
    guard var current = move else {
      if t >= quietUntil, magnitude > parameters.onsetThreshold,
        t - wasActive > parameters.quietTime
      {
        move = Move(
          startTime: t, lastActive: t, lastTime: t, lastAcceleration: acceleration,
          largest: magnitude, startPeak: acceleration)
      }
      return nil
    }
    // Trapezoidal integration of the velocity change since the move began.
    let dt = Swift.max(0, t - current.lastTime)
    current.velocity += 0.5 * dt * (acceleration + current.lastAcceleration)
    current.lastTime = t
    current.lastAcceleration = acceleration
    current.largest = Swift.max(current.largest, magnitude)
    if !current.isStopping {
      // A clear force against the velocity begins the stop. From here on the velocity only tells
      // how well the stop matched the start, so the direction is taken from the start alone.
      if magnitude > parameters.onsetThreshold, acceleration.dot(current.velocity) < 0 {
        current.isStopping = true
        current.stopPeak = acceleration
      } else {
        // Speeding up: every force so far belongs to the start.
        if current.velocity.length > current.peakVelocity.length {
          current.peakVelocity = current.velocity
        }
        if magnitude > current.startPeak.length { current.startPeak = acceleration }
      }
    } else if magnitude > current.stopPeak.length, acceleration.dot(current.peakVelocity) < 0 {
      current.stopPeak = acceleration
    }
    if magnitude > parameters.onsetThreshold { current.lastActive = t }
    move = current

    if t - current.startTime > parameters.maximumDuration {
      move = nil
      quietUntil = t + parameters.refractoryPeriod
      return nil
    }
    guard t - current.lastActive > parameters.quietTime else { return nil }
    move = nil
    guard current.largest > parameters.triggerThreshold,
      current.peakVelocity.length >= parameters.minimumSpeed,
      let direction = MovementDirection(closestTo: current.peakVelocity)
    else { return nil }
    quietUntil = t + parameters.refractoryPeriod
    return Event(
      timestamp: t, startTime: current.startTime, direction: direction,
      vector: current.peakVelocity.normalized, startPeak: current.startPeak,
      stopPeak: current.stopPeak, peakSpeed: current.peakVelocity.length)
  }
}
