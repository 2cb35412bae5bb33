// SPDX-License-Identifier: Apache-2.0

/// A turn during a ``ScenarioSegment/drive(speed:duration:vibration:ramp:turns:)`` segment.
public struct DriveTurn: Sendable, Equatable, Codable {
  /// When the turn starts, in seconds from the start of the drive.
  public var start: Double
  /// The heading change in degrees; positive turns left (counter-clockwise seen from above).
  public var angle: Double
  /// How long the turn takes in seconds (default 4).
  public var duration: Double

  /// Creates a turn of `angle` degrees (positive = left) starting `start` seconds into the drive.
  public init(start: Double, angle: Double, duration: Double = 4) {
    self.start = start
    self.angle = angle
    self.duration = duration
  }

  private enum CodingKeys: String, CodingKey { case start, angle, duration }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    start = try c.decode(Double.self, forKey: .start)
    angle = try c.decode(Double.self, forKey: .angle)
    duration = try c.decodeIfPresent(Double.self, forKey: .duration) ?? 4
  }
}
