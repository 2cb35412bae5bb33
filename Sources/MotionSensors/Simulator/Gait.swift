// SPDX-License-Identifier: Apache-2.0

/// How a ``ScenarioSegment/gait(_:duration:)`` segment walks or runs, and where the phone is.
///
/// In JSON: `{"type": "gait", "style": "walk", "placement": "frontPocket", "cadence": 1.8,
/// "speed": 1.3, "climb": 6, "duration": 30}`; omitted members take the defaults below.
public struct Gait: Sendable, Equatable, Codable {
  /// Walking or running.
  public enum Style: String, Sendable, Equatable, Codable, CaseIterable {
    case walk
    case run
  }

  /// Where the phone is carried; each placement moves the phone differently with every step.
  public enum Placement: String, Sendable, Equatable, Codable, CaseIterable {
    /// Held in front of the body, screen towards the face (the `walk` segment's model).
    case hand
    /// In a front trouser pocket: the phone swings with the thigh at the stride frequency.
    case frontPocket
    /// In a back trouser pocket: a smaller swing with the buttock and thigh.
    case backPocket
    /// In a shoulder bag: a damped bounce and a slow pendulum sway.
    case bag
  }

  /// Walking or running (default walk).
  public var style: Style
  /// Where the phone is (default hand).
  public var placement: Placement
  /// Steps per second (default 1.8 walking, 2.8 running).
  public var cadence: Double
  /// Forward speed in m/s (default 1.3 walking, 3.0 running).
  public var speed: Double
  /// Height gained over the segment in metres, negative going down (default 0). A nonzero climb
  /// walks stairs: about 0.17 m per step is typical, so 3 m (one floor) takes about 18 steps.
  public var climb: Double

  /// Creates a gait; omitted values take the style's defaults.
  public init(
    style: Style = .walk, placement: Placement = .hand, cadence: Double? = nil,
    speed: Double? = nil,
    climb: Double = 0
  ) {
    self.style = style
    self.placement = placement
    self.cadence = cadence ?? (style == .run ? 2.8 : 1.8)
    self.speed = speed ?? (style == .run ? 3.0 : 1.3)
    self.climb = climb
  }

  private enum CodingKeys: String, CodingKey { case style, placement, cadence, speed, climb }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      style: try c.decodeIfPresent(Style.self, forKey: .style) ?? .walk,
      placement: try c.decodeIfPresent(Placement.self, forKey: .placement) ?? .hand,
      cadence: try c.decodeIfPresent(Double.self, forKey: .cadence),
      speed: try c.decodeIfPresent(Double.self, forKey: .speed),
      climb: try c.decodeIfPresent(Double.self, forKey: .climb) ?? 0)
  }
}
