// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The six device orientations of UIKit's `UIDeviceOrientation` as attitudes in the NWU earth
/// frame. Each is the identity (lying face up, right edge +x pointing north, top edge +y west)
/// turned by quarter or half turns, so that the specific force at rest lies along one device axis.
public enum DeviceOrientationName: String, Sendable, Codable, CaseIterable {
  /// Lying on its back, screen up, +x north, top edge west. Specific force (0, 0, +g).
  case faceUp
  /// Lying on its screen (faceUp turned half a turn about the top–bottom axis): +x south, top edge
  /// west. Specific force (0, 0, −g).
  case faceDown
  /// Upright, top edge up, +x north, screen facing east. Specific force (0, +g, 0).
  case portrait
  /// Upright, top edge down, +x north, screen facing west. Specific force (0, −g, 0).
  case portraitUpsideDown
  /// Upright on its side with +x up (portrait turned a quarter turn counter-clockwise in the
  /// screen plane; camera on the left), top edge south, screen facing east. Specific force
  /// (+g, 0, 0).
  case landscapeLeft
  /// Upright on its side with +x down (portrait turned a quarter turn clockwise), top edge north,
  /// screen facing east. Specific force (−g, 0, 0).
  case landscapeRight

  /// The attitude `earthFromSensor` (NWU).
  public var earthFromSensor: Quaternion {
    let x = SIMD3<Double>(1, 0, 0)
    let y = SIMD3<Double>(0, 1, 0)
    let z = SIMD3<Double>(0, 0, 1)
    let quarter = Double.pi / 2
    switch self {
    case .faceUp: return .identity
    case .faceDown: return Quaternion(angle: .pi, axis: y)
    case .portrait: return Quaternion(angle: quarter, axis: x)
    case .portraitUpsideDown: return Quaternion(angle: -quarter, axis: x)
    // Landscape = portrait turned in the screen plane, so the screen keeps facing east.
    case .landscapeLeft:
      return Quaternion(angle: quarter, axis: x) * Quaternion(angle: quarter, axis: z)
    case .landscapeRight:
      return Quaternion(angle: quarter, axis: x) * Quaternion(angle: -quarter, axis: z)
    }
  }
}
