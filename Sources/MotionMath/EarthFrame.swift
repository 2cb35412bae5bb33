// SPDX-License-Identifier: Apache-2.0

/// The earth-fixed frames OpenCoreMotion meets, and the rotations between them.
///
/// OpenCoreMotion's own earth frame is **NWU**: x north (magnetic or arbitrary, depending on the
/// reference frame), y west, z up, which is Core Motion's `.xMagneticNorthZVertical`. Datasets
/// often use ENU (BROAD) or NED (aviation); convert once with ``rotation(to:)``.
public enum EarthFrame: String, Sendable, CaseIterable {
  /// x north, y west, z up (Core Motion, OpenCoreMotion).
  case northWestUp
  /// x east, y north, z up (BROAD, many datasets, Android's world frame rotated).
  case eastNorthUp
  /// x north, y east, z down (aviation, some IMU vendors).
  case northEastDown

  /// The rotation `nwuFromSelf` that takes vectors written in this frame to NWU.
  public var northWestUpFromSelf: Quaternion {
    switch self {
    case .northWestUp:
      return .identity
    case .eastNorthUp:
      // east → −west, north → north: a −90° turn about up.
      return .aboutZ(-.pi / 2)
    case .northEastDown:
      // north → north, east → −west, down → −up: a half turn about north.
      return Quaternion(w: 0, x: 1, y: 0, z: 0)
    }
  }

  /// The rotation that takes vectors written in this frame to vectors written in `other`.
  public func rotation(to other: EarthFrame) -> Quaternion {
    other.northWestUpFromSelf.conjugate * northWestUpFromSelf
  }
}
