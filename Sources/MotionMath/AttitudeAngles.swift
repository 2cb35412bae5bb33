// SPDX-License-Identifier: Apache-2.0

/// Roll, pitch and yaw in radians, in Core Motion's convention.
///
/// The attitude `earthFromSensor` is the product of three rotations about earth-fixed axes applied
/// in the order: roll about y, then pitch about x, then yaw about z:
///
///     earthFromSensor = Rz(yaw) · Rx(pitch) · Ry(roll)
///
/// so pitch spans [−π/2, π/2] and roll and yaw span (−π, π]. All three are zero when the sensor
/// frame coincides with the reference frame. A phone upright in portrait has pitch = +π/2; a phone
/// lying flat and turned counter-clockwise (seen from above) has a positive yaw.
public struct AttitudeAngles: Hashable, Sendable {
  /// Rotation about the device's y axis (top-to-bottom axis), radians.
  public var roll: Double
  /// Rotation about the device's x axis (side-to-side axis), radians.
  public var pitch: Double
  /// Rotation about the vertical z axis, radians.
  public var yaw: Double

  /// Creates angles from their values in radians.
  @inlinable
  public init(roll: Double, pitch: Double, yaw: Double) {
    self.roll = roll
    self.pitch = pitch
    self.yaw = yaw
  }

  /// The angles of a unit quaternion `earthFromSensor`.
  ///
  /// In gimbal lock (pitch = ±π/2) roll and yaw are not separable; the split is then continuous in
  /// the matrix but arbitrary.
  @inlinable
  public init(_ earthFromSensor: Quaternion) {
    let q = earthFromSensor
    // Matrix elements of Rz·Rx·Ry: m32 = sin(pitch); m31 = −cos(pitch)·sin(roll);
    // m33 = cos(pitch)·cos(roll); m12 = −sin(yaw)·cos(pitch); m22 = cos(yaw)·cos(pitch).
    let m32 = 2 * (q.y * q.z + q.w * q.x)
    let m31 = 2 * (q.x * q.z - q.w * q.y)
    let m33 = 1 - 2 * (q.x * q.x + q.y * q.y)
    let m12 = 2 * (q.x * q.y - q.w * q.z)
    let m22 = 1 - 2 * (q.x * q.x + q.z * q.z)
    self.init(
      roll: Double.atan2(-m31, m33),
      pitch: Double.asin(Swift.min(1, Swift.max(-1, m32))),
      yaw: Double.atan2(-m12, m22))
  }

  /// The unit quaternion `earthFromSensor = Rz(yaw) · Rx(pitch) · Ry(roll)`.
  @inlinable
  public var quaternion: Quaternion {
    Quaternion.aboutZ(yaw) * Quaternion(angle: pitch, axis: SIMD3(1, 0, 0))
      * Quaternion(angle: roll, axis: SIMD3(0, 1, 0))
  }
}
