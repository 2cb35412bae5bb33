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
  /// value is not finite (never deliver NaN). Called for one estimate at a time, and only for
  /// samples that will be delivered: each call anchors the next, which is why a gap marked
  /// from another thread waits for the lock until the call in progress is done.
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
      of: estimate, attitude: attitude, isNorthReferenced: frame.isNorthReferenced)
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

  /// `CMDeviceMotion.headingAccuracy`, degrees: how far the true heading may be from
  /// ``heading(of:)`` of `attitude` (the estimate's, in the frame), at the level of two standard
  /// deviations (about 95 % of errors for a normal one), at most 180°; −1 in the arbitrary frames
  /// and where the estimate has no heading uncertainty: before a magnetic heading, and while the
  /// heading follows an uncalibrated raw field (``AttitudeEstimator/headingUncertainty``).
  ///
  /// The heading moves with two errors of the attitude, taken as independent and added in
  /// quadrature: one for one with the yaw error, whose σ the estimate carries (2σ), and with the
  /// tilt error by as much as ``headingTurn(of:underTilt:)`` says for a tilt of 2 ×
  /// ``tiltUncertainty``. The second is nothing lying flat, about the tilt upright, and the whole
  /// 180° near the two poses where the heading has no direction, which a small error in the
  /// estimated tilt turns it through. Where the tilt's effect is small this is
  /// 2 · √(σ_yaw² + (s · σ_tilt)²), s the heading's slope per radian of tilt. The true-north frame
  /// adds no term for the declination: the World Magnetic Model's is good to about 0.5° away
  /// from the poles, small beside the magnetic heading's own.
  static func headingAccuracy(
    of estimate: DeviceMotionEstimate, attitude: Quaternion, isNorthReferenced: Bool
  )
    -> Double
  {
    guard isNorthReferenced, estimate.hasMagneticHeading,
      let sigma = estimate.headingUncertainty, sigma.isFinite, sigma >= 0
    else { return -1 }
    let fromYaw = 2 * sigma
    let fromTilt = headingTurn(of: attitude, underTilt: 2 * tiltUncertainty)
    let bound = (fromYaw * fromYaw + fromTilt * fromTilt).squareRoot()
    return Swift.min(bound * Units.degreesPerRadian, 180)
  }

  /// The RMS tilt (inclination) error of the real-time attitude, rad: 0.75°. The estimator does
  /// not track a tilt uncertainty, so this is a constant from our measurement:
  /// `Benchmarks/fusion-comparison` gives the inclination RMS on BROAD's 16 trials (the mean of
  /// the trials') as 0.51° at 286 and 95 Hz, 0.53° at 48 Hz and 0.73° at 20 Hz. A trial with
  /// fast translation is worse (2.27° at 20 Hz): accelerations the accelerometer cannot tell
  /// from gravity tilt any estimate.
  static let tiltUncertainty = 0.75 * Units.radiansPerDegree

  /// The largest turn of ``heading(of:)``, rad, in [0, π], when the attitude tilts by at most
  /// `tilt` rad (a turn about any horizontal axis of the reference frame), to first order in the
  /// tilt's effect on `top + |top.z| · back`.
  ///
  /// A tilt ε (a horizontal vector, rad) moves the horizontal part p of that pointing by J ε, J a
  /// linear map: the tilts within `tilt` move p over an ellipse around it, and the bearing turns
  /// at most to the ellipse's tangents through the origin. Where the ellipse reaches the line
  /// across p through the origin (a tilt could turn the bearing by 90° or more, or leave no
  /// horizontal part at all), the turn is counted as 180°. For a small tilt the turn is |ε| times
  /// the length of the bearing's gradient: 0 lying flat (a tilt moves the top edge up or down,
  /// not sideways), 1 upright (a sideways lean moves the pointing sideways by the lean), and
  /// without bound near the two poses where p vanishes. Closed form, no allocation.
  static func headingTurn(of referenceFromDevice: Quaternion, underTilt tilt: Double) -> Double {
    let top = referenceFromDevice.act(on: SIMD3(0, 1, 0))
    let back = referenceFromDevice.act(on: SIMD3(0, 0, -1))
    let lift = Swift.abs(top.z)
    let pointing = top + lift * back
    let lengthSquared = pointing.x * pointing.x + pointing.y * pointing.y
    let length = lengthSquared.squareRoot()
    // Where the top edge is level, |top.z| has two one-sided slopes, of the same size and
    // opposite sign; either gives the same ellipse there.
    let liftSlope: Double = top.z < 0 ? -1 : 1
    // Per radian of a turn about `axis`, p moves by the horizontal part of axis × top, plus the
    // change of |top.z| times the back, plus |top.z| · axis × back: a column of J, split into
    // its parts along p and across it (clockwise, the way the bearing grows).
    func move(about axis: SIMD3<Double>) -> (along: Double, across: Double) {
      let topMove = axis.cross(top)
      let move = topMove + liftSlope * topMove.z * back + lift * axis.cross(back)
      return (
        (pointing.x * move.x + pointing.y * move.y) / length,
        (pointing.y * move.x - pointing.x * move.y) / length
      )
    }
    let aboutNorth = move(about: SIMD3(1, 0, 0))
    let aboutWest = move(about: SIMD3(0, 1, 0))
    // J Jᵀ in (along, across): the ellipse's shape.
    let along = aboutNorth.along * aboutNorth.along + aboutWest.along * aboutWest.along
    let mixed = aboutNorth.along * aboutNorth.across + aboutWest.along * aboutWest.across
    let across = aboutNorth.across * aboutNorth.across + aboutWest.across * aboutWest.across
    let tiltSquared = tilt * tilt
    // The ellipse stays on p's side of the line across it when its half-extent along p,
    // tilt · √along, is less than |p|. Also false for NaN (|p| = 0).
    let margin = lengthSquared - tiltSquared * along
    guard margin > 0 else { return .pi }
    // A line through the origin at angle θ to p touches the ellipse where
    // |p|² sin²θ = tilt² · (along sin²θ − 2 mixed sinθ cosθ + across cos²θ), a quadratic in
    // tan θ; the larger root in size is the farthest tangent.
    let tangent =
      (tiltSquared * Swift.abs(mixed)
        + tilt * (tiltSquared * mixed * mixed + margin * across).squareRoot()) / margin
    let turn = atan(tangent)
    return turn.isFinite ? turn : .pi
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
