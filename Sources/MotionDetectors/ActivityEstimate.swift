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

  /// The device is not moving (also set, with ``automotive``, in a vehicle at rest).
  public var stationary = false
  /// The person is walking.
  public var walking = false
  /// The person is running.
  public var running = false
  /// The person is cycling.
  public var cycling = false
  /// The device is in a vehicle, moving or not.
  public var automotive = false
  /// The classifier cannot tell yet (no window classified, or the evidence is too weak).
  public var unknown = false
  /// How sure the classifier is of the flags above.
  public var confidence: Confidence = .low
  /// When this activity began, s on the input's clock.
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
