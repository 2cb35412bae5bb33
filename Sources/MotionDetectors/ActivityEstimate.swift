// SPDX-License-Identifier: Apache-2.0

/// What the activity classifier believes the person is doing.
///
/// CONTRACT (keep the members): the flags mirror `CMMotionActivity` and are not mutually exclusive
/// (a car at a red light is automotive and stationary); `startTime` is when this estimate began (s,
/// the input's clock).
public struct ActivityEstimate: Sendable, Equatable {
  /// How sure the classifier is, as `CMMotionActivityConfidence`.
  public enum Confidence: Int, Sendable, Equatable, Comparable {
    case low = 0
    case medium = 1
    case high = 2
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  public var stationary = false
  public var walking = false
  public var running = false
  public var cycling = false
  public var automotive = false
  public var unknown = false
  public var confidence: Confidence = .low
  public var startTime: Double = 0

  public init(
    stationary: Bool = false, walking: Bool = false, running: Bool = false, cycling: Bool = false,
    automotive: Bool = false, unknown: Bool = false, confidence: Confidence = .low,
    startTime: Double = 0
  ) {
    self.stationary = stationary
    self.walking = walking
    self.running = running
    self.cycling = cycling
    self.automotive = automotive
    self.unknown = unknown
    self.confidence = confidence
    self.startTime = startTime
  }

  /// True when both describe the same activity (flags and confidence), whatever their start times.
  public func sameActivity(as other: ActivityEstimate) -> Bool {
    var a = self
    a.startTime = other.startTime
    return a == other
  }
}
