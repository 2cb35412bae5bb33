// SPDX-License-Identifier: Apache-2.0

import MotionMath

// Invariant checks, compiled into debug builds (so every `swift test` run checks them, without a
// second build in CI) and into any build with `-Xswiftc -DMOTION_INTERNAL_CHECKS`
// (swift-collections' pattern): free in release builds, a trap naming the broken invariant in
// checked ones.
extension AttitudeEstimator {
  #if MOTION_INTERNAL_CHECKS || DEBUG
    /// Traps when the state breaks an invariant: unit-norm attitude quaternions, a finite bias and
    /// heading, and a bias covariance with a non-negative diagonal.
    func checkInvariants() {
      func isUnit(_ q: Quaternion) -> Bool { Swift.abs(q.lengthSquared - 1) < 1e-9 }
      precondition(
        isUnit(state.inertialFromSensor),
        "AttitudeEstimator invariant: inertialFromSensor is not unit length")
      precondition(
        isUnit(state.earthFromInertial),
        "AttitudeEstimator invariant: earthFromInertial is not unit length")
      precondition(
        isUnit(state.headingRotation),
        "AttitudeEstimator invariant: headingRotation is not unit length")
      precondition(
        state.gyroscopeBias.isFinite,
        "AttitudeEstimator invariant: the gyroscope bias is not finite")
      precondition(
        state.headingOffset.isFinite,
        "AttitudeEstimator invariant: the heading offset is not finite")
      precondition(
        gyroscopeBiasSigma.isFinite && gyroscopeBiasSigma >= 0,
        "AttitudeEstimator invariant: the bias covariance has a negative or non-finite diagonal")
    }
  #else
    @inline(__always)
    func checkInvariants() {}
  #endif
}
