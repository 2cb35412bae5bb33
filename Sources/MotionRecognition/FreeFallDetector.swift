// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Recognises free fall (a dropped or tossed device) from the total acceleration, and reports its
/// end with the fall's duration and the drop height it implies.
///
/// In free fall an accelerometer reads nearly zero. A fall begins once the total acceleration has
/// stayed below ``Parameters/threshold`` (0.3 g) for ``Parameters/minimumDuration`` (0.08 s; a
/// drop of 3 cm) and ends at the first reading above ``Parameters/endThreshold`` (0.6 g), usually
/// the catch or the impact.
public struct FreeFallDetector: MotionEventDetector {
  /// A fall's stage.
  public enum Phase: Sendable, Hashable {
    case began, ended
  }

  /// One stage of a fall.
  public struct Event: Sendable, Hashable {
    /// Which stage.
    public var phase: Phase
    /// When the stage was recognised, seconds on the input's clock.
    public var timestamp: Double
    /// When the fall started (the first low reading), seconds.
    public var startTime: Double

    /// The time spent falling so far, seconds.
    public var duration: Double { timestamp - startTime }

    /// The height of a drop from rest lasting ``duration``, metres (`½ g t²`).
    public var dropHeight: Double { 0.5 * Units.standardGravity * duration * duration }
  }

  /// The detector's tuning, in g and seconds.
  public struct Parameters: Sendable, Hashable {
    /// Total acceleration below which the device may be falling, g. Default 0.3 g.
    public var threshold: Double
    /// Total acceleration above which a fall is over, g. Default 0.6 g.
    public var endThreshold: Double
    /// How long readings must stay low before a fall is reported, seconds. Default 0.08 s.
    public var minimumDuration: Double

    /// Creates parameters; see the properties for units and defaults.
    public init(threshold: Double = 0.3, endThreshold: Double = 0.6, minimumDuration: Double = 0.08)
    {
      self.threshold = threshold
      self.endThreshold = endThreshold
      self.minimumDuration = minimumDuration
    }

    /// The defaults.
    public static let `default` = Parameters()
  }

  /// The tuning; change it at any time.
  public var parameters: Parameters
  private var lowSince: Double?
  /// Whether a fall is in progress.
  public private(set) var isFalling = false

  /// Creates a detector with the given parameters (default ``Parameters/default``).
  public init(parameters: Parameters = .default) {
    self.parameters = parameters
  }

  public mutating func reset() {
    lowSince = nil
    isFalling = false
  }

  public mutating func update(_ input: MotionInput) -> Event? {
    let t = input.timestamp
    let magnitude = input.acceleration.length
    if isFalling {
      guard magnitude > parameters.endThreshold, let start = lowSince else { return nil }
      isFalling = false
      lowSince = nil
      return Event(phase: .ended, timestamp: t, startTime: start)
    }
    guard magnitude < parameters.threshold else {
      lowSince = nil
      return nil
    }
    let start = lowSince ?? t
    lowSince = start
    guard t - start >= parameters.minimumDuration else { return nil }
    isFalling = true
    return Event(phase: .began, timestamp: t, startTime: start)
  }
}
