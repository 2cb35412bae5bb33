// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension DeviceOrientation {
  /// The orientation whose gravity direction is closest to `gravity` (g, Apple's sign, any length),
  /// without hysteresis; ``unknown`` for a zero or non-finite vector.
  ///
  /// This is the "true class" used to score a classifier against ground truth.
  public static func nearest(toGravity gravity: SIMD3<Double>) -> DeviceOrientation {
    let direction = gravity.normalized
    guard direction != .zero else { return .unknown }
    var best = DeviceOrientation.unknown
    var bestDot = -Double.infinity
    for orientation in determinate {
      let d = direction.dot(orientation.gravityDirection)
      if d > bestDot {
        bestDot = d
        best = orientation
      }
    }
    return best
  }

  /// The signed angle in radians from `gravity` to the nearest boundary of this orientation's
  /// region: positive inside the region (the gravity direction is closer to this orientation's
  /// axis than to any neighbour's), negative outside; `-π/2` for ``unknown`` or a zero vector.
  ///
  /// The boundary between two neighbouring orientations is the plane that bisects their axes, so
  /// the margin to neighbour `j` is `asin(ĝ · (eᵢ − eⱼ) / √2)`; the margin is the smallest of the
  /// four. In the plane of two axes, a margin of 10° means "within 35° of the axis".
  public func boundaryMargin(gravity: SIMD3<Double>) -> Double {
    let direction = gravity.normalized
    guard self != .unknown, direction != .zero else { return -.pi / 2 }
    let own = gravityDirection
    var margin = Double.infinity
    for neighbour in DeviceOrientation.determinate {
      let axis = neighbour.gravityDirection
      guard Swift.abs(axis.dot(own)) < 0.5 else { continue }  // skip itself and its opposite
      let s = direction.dot(own - axis) / 2.0.squareRoot()
      margin = Swift.min(margin, Double.asin(Swift.min(1, Swift.max(-1, s))))
    }
    return margin
  }
}
