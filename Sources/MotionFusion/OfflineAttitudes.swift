// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The sensor-to-earth attitude at every sample of a recording, as ``OfflineAttitudeEstimator``
/// found it, with the gyroscope bias its first pass converged to.
///
/// Each attitude is stored in single precision (16 bytes; rounding moves it by about 1e-5°) and
/// read back as a normalised `Quaternion` (MotionMath).
public struct OfflineAttitudes: RandomAccessCollection, Sendable {
  /// The gyroscope bias, rad/s, that the first forward pass converged to over the whole
  /// recording: the best constant estimate it gives (zero when empty).
  public let gyroscopeBias: SIMD3<Double>
  private let attitudes: [SinglePrecisionQuaternion]

  init(attitudes: [SinglePrecisionQuaternion], gyroscopeBias: SIMD3<Double>) {
    self.attitudes = attitudes
    self.gyroscopeBias = gyroscopeBias
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { attitudes.count }

  /// The attitude at sample `index` (`earthFromSensor`).
  public subscript(index: Int) -> Quaternion { attitudes[index].doublePrecision.normalized }
}
