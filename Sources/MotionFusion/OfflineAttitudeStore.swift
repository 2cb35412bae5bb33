// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Where ``OfflineAttitudeEstimator`` keeps the attitudes of one pass, one per sample, in single
/// precision.
///
/// The estimator writes every index of `0..<count` before it reads it back, and walks each store
/// in order (forward or backward), so a store may keep only a window of it in memory and the rest
/// elsewhere (OpenCoreMotion's offline replay keeps it in a temporary file). An array is the
/// in-memory store.
package protocol OfflineAttitudeStore {
  /// The attitude (`earthFromSensor`) of sample `index`.
  subscript(index: Int) -> SinglePrecisionQuaternion { get set }
}

extension Array: OfflineAttitudeStore where Element == SinglePrecisionQuaternion {}
