// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The attitude error between an estimate and a reference, split the BROAD way (Laidig et al.
/// 2021) into heading (about the earth vertical) and inclination, in radians.
///
/// With `d = q_est ⊗ conj(q_ref)` (the error expressed in the earth frame), normalised:
/// total `2·acos(|d.w|)`, heading `2·atan(|d.z / d.w|)`, inclination `2·acos(√(d.w² + d.z²))`.
/// The values do not change when both attitudes are re-expressed in an earth frame rotated about
/// the vertical (ENU versus NWU), since such a rotation leaves `d.w` and `d.z` unchanged.
public struct AttitudeError: Sendable, Equatable {
  /// Angle of the whole error rotation, rad.
  public var total: Double
  /// Heading part, rad.
  public var heading: Double
  /// Inclination part, rad.
  public var inclination: Double

  /// Creates an error from its three parts (rad).
  public init(total: Double, heading: Double, inclination: Double) {
    self.total = total
    self.heading = heading
    self.inclination = inclination
  }

  /// The error of `estimate` against `reference` (both sensor-to-earth unit quaternions in the
  /// same earth frame).
  public init(estimate: Quaternion, reference: Quaternion) {
    self.init(earthError: Self.earthError(estimate: estimate, reference: reference))
  }

  /// The normalised earth-frame error quaternion `d = q_est ⊗ conj(q_ref)` of `estimate` against
  /// `reference`, from which every part of the error is computed.
  static func earthError(estimate: Quaternion, reference: Quaternion) -> Quaternion {
    (estimate * reference.conjugate).normalized
  }

  /// The error parts of an earth-frame error quaternion `d` (unit length).
  public init(earthError d: Quaternion) {
    let w = Swift.abs(d.w)
    total = 2 * Double.acos(Swift.min(1, w))
    heading = w > 0 ? 2 * Double.atan(Swift.abs(d.z / d.w)) : .pi
    inclination = 2 * Double.acos(Swift.min(1, (d.w * d.w + d.z * d.z).squareRoot()))
  }

  /// The signed heading angle of an earth-frame error quaternion, `2·atan2(d.z, d.w)`, rad; the
  /// quantity whose circular mean is removed in 6D evaluation.
  public static func signedHeading(earthError d: Quaternion) -> Double {
    2 * Double.atan2(d.z, d.w)
  }
}

/// Root-mean-square attitude errors over one trial, in degrees, as BROAD reports them.
public struct AttitudeErrorSummary: Sendable, Equatable, Codable {
  /// RMS of the total error, °.
  public var total: Double
  /// RMS of the heading error, °.
  public var heading: Double
  /// RMS of the inclination error, °.
  public var inclination: Double

  /// Creates a summary from its three RMS errors (°).
  public init(total: Double, heading: Double, inclination: Double) {
    self.total = total
    self.heading = heading
    self.inclination = inclination
  }

  /// The RMS errors (°) of `estimates` against `references` over the samples where
  /// `references[i]` is present and `isEvaluated[i]` holds. With `removeHeadingOffset` (6D) the
  /// constant heading offset that best aligns the two (the circular mean of the signed heading
  /// error over those samples) is removed first. `nil` when no sample qualifies.
  public static func rms(
    estimates: [Quaternion], references: [Quaternion?], isEvaluated: [Bool],
    removeHeadingOffset: Bool
  ) -> AttitudeErrorSummary? {
    precondition(estimates.count == references.count && references.count == isEvaluated.count)
    var offset = Quaternion.identity
    if removeHeadingOffset {
      var sine = 0.0, cosine = 0.0
      for i in estimates.indices where isEvaluated[i] {
        guard let reference = references[i] else { continue }
        let d = AttitudeError.earthError(estimate: estimates[i], reference: reference)
        let angle = AttitudeError.signedHeading(earthError: d)
        sine += Double.sin(angle)
        cosine += Double.cos(angle)
      }
      // Rotating the estimate by −mean about the earth vertical removes the offset.
      offset = Quaternion.aboutZ(-Double.atan2(sine, cosine))
    }
    var count = 0
    var total = 0.0, heading = 0.0, inclination = 0.0
    for i in estimates.indices where isEvaluated[i] {
      guard let reference = references[i] else { continue }
      let e = AttitudeError(estimate: offset * estimates[i], reference: reference)
      total += e.total * e.total
      heading += e.heading * e.heading
      inclination += e.inclination * e.inclination
      count += 1
    }
    guard count > 0 else { return nil }
    let n = Double(count)
    let d = Units.degreesPerRadian
    return AttitudeErrorSummary(
      total: (total / n).squareRoot() * d, heading: (heading / n).squareRoot() * d,
      inclination: (inclination / n).squareRoot() * d)
  }
}
