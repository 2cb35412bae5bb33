// SPDX-License-Identifier: Apache-2.0

import Foundation
import MotionFusion
import MotionMath

/// Turns fusion estimates into `CMDeviceMotion` samples in one reference frame, for one run of
/// device-motion updates. This is where library units become Core Motion's.
///
/// - `.xArbitraryZVertical`: the 6D attitude, turned about z so that yaw is 0 at the first
///   delivered sample.
/// - `.xArbitraryCorrectedZVertical`: the same with the 9D (magnetometer-stabilised) attitude.
/// - `.xMagneticNorthZVertical`: the 9D attitude as is (NWU: x magnetic north).
/// - `.xTrueNorthZVertical`: the 9D attitude turned by the declination D (degrees, east
///   positive): `trueFromMagnetic = Rz(−D)`, so true yaw = magnetic yaw − D and heading grows by D.
///
/// After ``continueHeadingAfterGap()`` (the estimates now come from a new estimator: the motion
/// daemon restarted) the arbitrary frame's yaw carries on from the last delivered update instead
/// of jumping to the new estimator's arbitrary heading.
///
/// `@unchecked Sendable`: the mutable state is guarded by `lock`. The estimates come one at a
/// time (each run makes its own aligner and calls it from its source's delivery thread, or under
/// the daemon stream's delivery lock), but a gap may be marked from another thread meanwhile: a
/// device-motion run on the daemon's fused motion that subscribes again while the daemon is away
/// (its interval changed) holds two daemon streams for a moment, and the new one is told of the
/// disconnection on the subscribing or the reconnecting thread while the old one delivers
/// estimates on the connection's reader thread, under another stream's lock.
package final class ReferenceFrameAligner: @unchecked Sendable {
  package let frame: CMAttitudeReferenceFrame
  /// Magnetic declination in degrees, east positive; used by `.xTrueNorthZVertical` only.
  package let declination: Double
  /// Guards the three properties below, for a whole ``deviceMotion(from:)``: a gap marked in the
  /// middle of one would anchor the next update to the attitude before it.
  private let lock = NSLock()
  /// The turn about z that takes the estimator's arbitrary heading to the frame's; set from the
  /// first estimate after the start or a gap.
  private var startHeadingRemoval: Quaternion?
  /// The yaw (rad) that estimate gets: 0 at the start, the last delivered yaw after a gap.
  private var anchorYaw = 0.0
  /// The attitude of the last update delivered in `.xArbitraryZVertical`.
  private var lastArbitraryAttitude: Quaternion?

  package init(frame: CMAttitudeReferenceFrame, declination: Double = 0) {
    self.frame = frame
    self.declination = declination
  }

  /// Makes the next `.xArbitraryZVertical` update continue the yaw of the last one delivered:
  /// called when the estimates are interrupted and may come back from a new estimator (a
  /// restarted motion daemon), whose arbitrary heading has nothing to do with the old one. The
  /// rotation about the vertical during the gap itself is not known and is not added. The
  /// other frames need nothing: their heading is magnetic, the same for any estimator.
  package func continueHeadingAfterGap() {
    lock.lock()
    defer { lock.unlock() }
    guard let last = lastArbitraryAttitude else { return }
    anchorYaw = AttitudeAngles(last).yaw
    startHeadingRemoval = nil
  }

  /// Whether `estimate` can be expressed in the frame: the magnetometer frames start once the
  /// filter has found north, rather than jumping when it does.
  package func accepts(_ estimate: DeviceMotionEstimate) -> Bool {
    !frame.needsMagnetometer || estimate.hasMagneticHeading
  }

  /// The Core Motion sample of `estimate`, or `nil` when the frame does not accept it yet or a
  /// value is not finite (never deliver NaN). Called serially, only for samples that will be
  /// delivered.
  package func deviceMotion(from estimate: DeviceMotionEstimate) -> CMDeviceMotion? {
    guard accepts(estimate) else { return nil }
    lock.lock()
    defer { lock.unlock() }
    let referenceFromDevice: Quaternion
    switch frame {
    case .xArbitraryZVertical:
      referenceFromDevice = removingStartHeading(estimate.earthFromSensor6D)
    case .xArbitraryCorrectedZVertical:
      referenceFromDevice = removingStartHeading(estimate.earthFromSensor9D)
    case .xTrueNorthZVertical:
      referenceFromDevice =
        Quaternion.aboutZ(-declination * Units.radiansPerDegree) * estimate.earthFromSensor9D
    default:
      referenceFromDevice = estimate.earthFromSensor9D
    }
    guard referenceFromDevice.isFinite, referenceFromDevice.lengthSquared > 0.5 else { return nil }
    let attitude = referenceFromDevice.normalized

    // Gravity points down: (0, 0, −1) g in the reference frame, rotated into the device frame.
    let gravity = attitude.conjugate.act(on: SIMD3(0, 0, -1))
    let acceleration = Units.coreMotionAcceleration(fromSpecificForce: estimate.accelerometer)
    let userAcceleration = acceleration - gravity
    let rotationRate = estimate.gyroscope - estimate.gyroscopeBias
    let field = estimate.calibratedMagneticField ?? .zero
    let heading = frame.isNorthReferenced ? Self.heading(of: attitude) : -1
    let headingAccuracy = Self.headingAccuracy(
      of: estimate, isNorthReferenced: frame.isNorthReferenced)
    guard gravity.isFinite, userAcceleration.isFinite, rotationRate.isFinite, field.isFinite,
      heading.isFinite
    else { return nil }

    if frame == .xArbitraryZVertical { lastArbitraryAttitude = attitude }
    let accuracy: CMMagneticFieldCalibrationAccuracy =
      estimate.calibratedMagneticField == nil
      ? .uncalibrated : CMMagneticFieldCalibrationAccuracy(estimate.magneticCalibrationAccuracy)
    return CMDeviceMotion(
      timestamp: estimate.timestamp,
      attitude: CMAttitude(referenceFromDevice: attitude),
      rotationRate: CMRotationRate(rotationRate),
      gravity: CMAcceleration(gravity),
      userAcceleration: CMAcceleration(userAcceleration),
      magneticField: CMCalibratedMagneticField(field: CMMagneticField(field), accuracy: accuracy),
      heading: heading, headingAccuracy: headingAccuracy)
  }

  /// `CMDeviceMotion.headingAccuracy`, degrees: two standard deviations of the estimate's heading
  /// uncertainty (about 95 % of errors for a normal one), at most 180°; −1 in the arbitrary
  /// frames and where the estimate has no uncertainty: before a magnetic heading, and while the
  /// heading follows an uncalibrated raw field (``AttitudeEstimator/headingUncertainty``). The true-north frame adds no term for the
  /// declination: the World Magnetic Model's is good to about 0.5° away from the poles, small
  /// beside the magnetic heading's own.
  static func headingAccuracy(
    of estimate: DeviceMotionEstimate, isNorthReferenced: Bool
  )
    -> Double
  {
    guard isNorthReferenced, estimate.hasMagneticHeading,
      let sigma = estimate.headingUncertainty, sigma.isFinite, sigma >= 0
    else { return -1 }
    return Swift.min(2 * sigma * Units.degreesPerRadian, 180)
  }

  private func removingStartHeading(_ earthFromSensor: Quaternion) -> Quaternion {
    let removal =
      startHeadingRemoval ?? Quaternion.aboutZ(anchorYaw - AttitudeAngles(earthFromSensor).yaw)
    startHeadingRemoval = removal
    return removal * earthFromSensor
  }

  /// `CMDeviceMotion.heading`: the compass bearing in degrees, [0, 360), of where the device
  /// points, in a north-referenced attitude (NWU: x north, y west, z up).
  ///
  /// Where it points is the horizontal direction of `top + |top.z| · back`, the top edge (+y)
  /// turned towards the direction the back (the camera, −z) faces as the top edge rises or dips
  /// out of the horizontal: with the top edge level it is the top edge's bearing (a roll leaves
  /// it so), held upright either way up it is where the camera looks, and it turns smoothly in
  /// between. The bearing of the top edge alone is undefined upright, where the top edge points
  /// at the sky, and wandered there with the fusion's noise. No bearing can turn with the device
  /// about the vertical and be continuous in every pose (a circle-valued function on the
  /// attitudes that shifts with yaw would split them into tilt × yaw, which they do not): this
  /// one has two poses without a direction, where the two terms cancel and the bearing turns by
  /// 180° (a pose is its two tilts; its yaw does not matter): the top edge 51.8° above the
  /// horizontal with the screen facing 38.2° below it, and the top edge 51.8° below the
  /// horizontal with the screen facing 38.2° above it (there cos e = sin² e, e the top edge's
  /// angle to the horizontal, and the back faces back over the top edge). In those poses the
  /// result is a finite bearing of the rounding.
  static func heading(of referenceFromDevice: Quaternion) -> Double {
    let top = referenceFromDevice.act(on: SIMD3(0, 1, 0))
    let back = referenceFromDevice.act(on: SIMD3(0, 0, -1))
    let pointing = top + Swift.abs(top.z) * back
    // Clockwise from north (+x) towards east (−y).
    var bearing = atan2(-pointing.y, pointing.x) * Units.degreesPerRadian
    if bearing < 0 { bearing += 360 }
    if bearing >= 360 { bearing -= 360 }  // −1e-15 + 360 rounds to 360
    return bearing + 0  // never −0
  }
}
