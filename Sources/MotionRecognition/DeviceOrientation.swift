// SPDX-License-Identifier: Apache-2.0

/// The physical orientation of a device, with the cases and raw values of UIKit's
/// `UIDeviceOrientation`.
///
/// Each case except ``unknown`` is named after the device axis that points down, i.e. where Core
/// Motion's gravity vector (in g, Apple's sign) points: see ``gravityDirection``.
public enum DeviceOrientation: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// The orientation can't be determined (ambiguous, in free fall, or being shaken).
  case unknown = 0
  /// Upright, home edge (front camera) at the top; gravity (0, −1, 0).
  case portrait = 1
  /// Upside down, front camera at the bottom; gravity (0, +1, 0).
  case portraitUpsideDown = 2
  /// Upright on its side with the front camera on the left (device +x points up); gravity (−1, 0,
  /// 0).
  case landscapeLeft = 3
  /// Upright on its side with the front camera on the right (device +x points down); gravity (+1,
  /// 0, 0).
  case landscapeRight = 4
  /// Lying flat, screen up; gravity (0, 0, −1).
  case faceUp = 5
  /// Lying flat, screen down; gravity (0, 0, +1).
  case faceDown = 6

  /// Whether the device is upright in portrait or upside down.
  public var isPortrait: Bool { self == .portrait || self == .portraitUpsideDown }

  /// Whether the device is on its left or right side.
  public var isLandscape: Bool { self == .landscapeLeft || self == .landscapeRight }

  /// Whether the device is lying flat, face up or face down.
  public var isFlat: Bool { self == .faceUp || self == .faceDown }

  /// Whether the orientation can be an interface orientation (portrait or landscape).
  public var isValidInterfaceOrientation: Bool { isPortrait || isLandscape }

  /// The six determinate orientations (every case except ``unknown``).
  public static let determinate: [DeviceOrientation] = [
    .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight, .faceUp, .faceDown,
  ]

  /// The unit direction, in device coordinates, that Core Motion's gravity vector (g, Apple's
  /// sign) points to in this orientation; zero for ``unknown``.
  public var gravityDirection: SIMD3<Double> {
    switch self {
    case .unknown: return .zero
    case .portrait: return SIMD3(0, -1, 0)
    case .portraitUpsideDown: return SIMD3(0, 1, 0)
    case .landscapeLeft: return SIMD3(-1, 0, 0)
    case .landscapeRight: return SIMD3(1, 0, 0)
    case .faceUp: return SIMD3(0, 0, -1)
    case .faceDown: return SIMD3(0, 0, 1)
    }
  }

  /// The UIKit spelling of the case (`"portrait"`, `"faceUp"`, ...).
  public var description: String {
    switch self {
    case .unknown: return "unknown"
    case .portrait: return "portrait"
    case .portraitUpsideDown: return "portraitUpsideDown"
    case .landscapeLeft: return "landscapeLeft"
    case .landscapeRight: return "landscapeRight"
    case .faceUp: return "faceUp"
    case .faceDown: return "faceDown"
    }
  }
}
