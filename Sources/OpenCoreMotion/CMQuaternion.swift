// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A unit quaternion `x·i + y·j + z·k + w`, scalar last as in Apple's struct.
///
/// For a rotation by θ about the unit axis (ax, ay, az): x = ax·sin(θ/2), y = ay·sin(θ/2),
/// z = az·sin(θ/2), w = cos(θ/2).
public struct CMQuaternion: Sendable {
  /// The coefficient of `i`.
  public var x: Double
  /// The coefficient of `j`.
  public var y: Double
  /// The coefficient of `k`.
  public var z: Double
  /// The real (scalar) part.
  public var w: Double

  /// Creates the all-zero quaternion, as Apple's zero initializer does (not the identity).
  public init() {
    self.init(x: 0, y: 0, z: 0, w: 0)
  }

  /// Creates a quaternion from its components, scalar last.
  public init(x: Double, y: Double, z: Double, w: Double) {
    self.x = x
    self.y = y
    self.z = z
    self.w = w
  }
}

extension CMQuaternion {
  init(_ q: Quaternion) {
    self.init(x: q.x, y: q.y, z: q.z, w: q.w)
  }

  /// The MotionMath quaternion with the same components.
  var quaternion: Quaternion { Quaternion(w: w, x: x, y: y, z: z) }
}
