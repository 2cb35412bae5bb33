// SPDX-License-Identifier: Apache-2.0

/// The direction of a sharp move in device coordinates (portrait: +x right, +y towards the top,
/// +z out of the screen).
///
/// "Forward" is into the screen (−z): pushing a device held in front of you, screen towards you,
/// away from you. "Back" is out of the screen (+z), towards you.
public enum MovementDirection: String, Sendable, Hashable, CaseIterable {
  case left, right, up, down, forward, back

  /// The unit vector of this direction in device coordinates.
  public var vector: SIMD3<Double> {
    switch self {
    case .left: return SIMD3(-1, 0, 0)
    case .right: return SIMD3(1, 0, 0)
    case .up: return SIMD3(0, 1, 0)
    case .down: return SIMD3(0, -1, 0)
    case .forward: return SIMD3(0, 0, -1)
    case .back: return SIMD3(0, 0, 1)
    }
  }

  /// The direction closest to `vector` (device coordinates), or `nil` for a zero vector.
  public init?(closestTo vector: SIMD3<Double>) {
    guard vector != .zero, vector.x.isFinite, vector.y.isFinite, vector.z.isFinite else {
      return nil
    }
    switch vector.dominantAxisIndex {
    case 0: self = vector.x < 0 ? .left : .right
    case 1: self = vector.y < 0 ? .down : .up
    default: self = vector.z < 0 ? .forward : .back
    }
  }
}
