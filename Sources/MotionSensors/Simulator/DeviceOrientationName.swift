// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The six device orientations of UIKit's `UIDeviceOrientation`, as attitudes with the screen or
/// top edge facing north.
public enum DeviceOrientationName: String, Sendable, Codable, CaseIterable {
  /// Lying on its back, screen up, top edge north. Specific force (0, 0, +g).
  case faceUp
  /// Lying on its screen, top edge north. Specific force (0, 0, −g).
  case faceDown
  /// Upright, top edge up, screen facing east. Specific force (0, +g, 0).
  case portrait
  /// Upright, top edge down. Specific force (0, −g, 0).
  case portraitUpsideDown
  /// Upright on its side with the device's +x axis up (camera on the left). Specific force (+g, 0, 0).
  case landscapeLeft
  /// Upright on its side with the device's +x axis down. Specific force (−g, 0, 0).
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
    case .landscapeLeft: return Quaternion(angle: quarter, axis: x) * Quaternion(angle: quarter, axis: z)
    case .landscapeRight: return Quaternion(angle: quarter, axis: x) * Quaternion(angle: -quarter, axis: z)
    }
  }
}
