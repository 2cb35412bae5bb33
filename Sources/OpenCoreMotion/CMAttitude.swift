// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionMath

/// The device's orientation relative to a reference frame, as Euler angles, a quaternion and a
/// rotation matrix (all three describe the same rotation).
///
/// Conventions (see `docs/AppleCompatibility.md`):
/// - ``quaternion`` is `referenceFromDevice`: it rotates the reference frame's axes onto the
///   device's axes, i.e. `q.act(on: v_device) == v_reference`.
/// - ``rotationMatrix`` is its transpose, `deviceFromReference`: column j is reference axis j
///   written in device coordinates (row i is device axis i in reference coordinates), so gravity in
///   the device frame is (−m13, −m23, −m33) g.
/// - ``roll``, ``pitch``, ``yaw`` in radians with `referenceFromDevice =
///   Rz(yaw)·Rx(pitch)·Ry(roll)`: pitch in [−π/2, π/2], roll and yaw in (−π, π].
open class CMAttitude: NSObject, NSCopying, NSSecureCoding {
  /// `referenceFromDevice`, unit length.
  private(set) var referenceFromDevice: Quaternion

  /// Creates the identity attitude (the device aligned with the reference frame).
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    referenceFromDevice = .identity
    super.init()
  }

  init(referenceFromDevice: Quaternion) {
    self.referenceFromDevice = referenceFromDevice.normalized
    super.init()
  }

  /// Rotation about the device's y axis (top-to-bottom), radians, (−π, π].
  open var roll: Double { AttitudeAngles(referenceFromDevice).roll }

  /// Rotation about the device's x axis (side to side), radians, [−π/2, π/2].
  open var pitch: Double { AttitudeAngles(referenceFromDevice).pitch }

  /// Rotation about the vertical axis, radians, (−π, π]; 0 when the device's x axis lies along the
  /// reference frame's x axis, positive counter-clockwise seen from above.
  open var yaw: Double { AttitudeAngles(referenceFromDevice).yaw }

  /// The attitude as a unit quaternion, reference from device (see the type's discussion).
  open var quaternion: CMQuaternion { CMQuaternion(referenceFromDevice) }

  /// The attitude as a rotation matrix, device from reference: the transpose of the quaternion's
  /// matrix (see the type's discussion).
  open var rotationMatrix: CMRotationMatrix {
    CMRotationMatrix(RotationMatrix(referenceFromDevice).transposed)
  }

  /// Replaces this attitude with its change relative to `attitude`: `self = attitude⁻¹ ⊗ self`.
  ///
  /// Afterwards the receiver is the current device orientation expressed in the device frame of
  /// `attitude` (the identity when both were equal). Cache a reference with `copy()` first.
  open func multiply(byInverseOf attitude: CMAttitude) {
    referenceFromDevice = (attitude.referenceFromDevice.conjugate * referenceFromDevice).normalized
  }

  // MARK: NSCopying

  /// Returns an independent copy (attitudes are mutable through ``multiply(byInverseOf:)``).
  open func copy(with zone: NSZone? = nil) -> Any {
    CMAttitude(referenceFromDevice: referenceFromDevice)
  }

  // MARK: NSSecureCoding

  open class var supportsSecureCoding: Bool { true }

  open func encode(with coder: NSCoder) {
    coder.encode(referenceFromDevice.w, forKey: "quaternion.w")
    coder.encodeVector(referenceFromDevice.imaginary, forKey: "quaternion")
  }

  public required init?(coder: NSCoder) {
    let imaginary = coder.decodeVector(forKey: "quaternion")
    let w = coder.decodeDouble(forKey: "quaternion.w")
    let q = Quaternion(real: w, imaginary: imaginary)
    guard q.isFinite, q.lengthSquared > 0.5 else { return nil }
    self.referenceFromDevice = q.normalized
    super.init()
  }

  open override var description: String {
    let angles = AttitudeAngles(referenceFromDevice)
    return "<CMAttitude roll: \(angles.roll) pitch: \(angles.pitch) yaw: \(angles.yaw)>"
  }
}
