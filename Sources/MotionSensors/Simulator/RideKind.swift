// SPDX-License-Identifier: Apache-2.0

/// What carries the person in a ``ScenarioSegment/ride(_:climb:duration:)`` segment while they
/// stand still: the height changes but nobody walks, so no floors are climbed on foot.
public enum RideKind: String, Sendable, Equatable, Codable, CaseIterable {
  /// A lift: it speeds up over the first 2 s, travels at a steady speed and slows down over the
  /// last 2 s (about 0.6 m/s² at the peak for three floors in 16 s), with a faint motor hum.
  case lift
  /// An escalator: forward and up (or down) at a steady 0.5 m/s along the incline, with the
  /// steps' rumble.
  case escalator
}
