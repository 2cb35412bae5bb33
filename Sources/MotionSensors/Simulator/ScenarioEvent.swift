// SPDX-License-Identifier: Apache-2.0

/// A labelled interval of a scenario (a shake, a tap, a step, an orientation change, …), in
/// scenario seconds, so that detectors can be scored against the times they should fire.
public struct ScenarioEvent: Sendable, Equatable, Codable {
  /// What happens during an event.
  public enum Kind: String, Sendable, Codable, CaseIterable {
    /// The device lies still.
    case rest
    /// The device turns to a new attitude (``ScenarioEvent/detail`` names it when it is a named
    /// orientation).
    case orientationChange
    /// The device rotates about an axis at a steady rate.
    case rotation
    /// The device is shaken back and forth.
    case shake
    /// The device is knocked (the acceleration spike).
    case tap
    /// The device falls freely (specific force near zero).
    case freeFall
    /// The device is caught after a fall.
    case impact
    /// One walking step (around the vertical acceleration peak).
    case step
    /// A walking bout.
    case walk
    /// A drive.
    case drive
    /// A vehicle turn during a drive.
    case turn
    /// A figure-8 (magnetometer calibration) motion.
    case figure8
    /// A translation without rotation.
    case translation
    /// A running bout.
    case run
    /// Stairs walked up or down (``ScenarioEvent/detail`` gives the climb).
    case stairs
    /// A lift ride, standing (``ScenarioEvent/detail`` gives the climb).
    case lift
    /// An escalator ride, standing (``ScenarioEvent/detail`` gives the climb).
    case escalator
    /// A bicycle ride.
    case cycle
  }

  /// What happens.
  public var kind: Kind
  /// Start in seconds of scenario time.
  public var start: Double
  /// End in seconds of scenario time (≥ start).
  public var end: Double
  /// Extra information, such as the orientation reached (`"portrait"`).
  public var detail: String?

  /// Creates an event.
  public init(kind: Kind, start: Double, end: Double, detail: String? = nil) {
    self.kind = kind
    self.start = start
    self.end = end
    self.detail = detail
  }

  /// Whether `time` (seconds) lies within the event, widened by `tolerance` seconds on each side.
  public func contains(_ time: Double, tolerance: Double = 0) -> Bool {
    time >= start - tolerance && time <= end + tolerance
  }
}
