// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// One synchronised sample of a recording for ``OfflineAttitudeEstimator``, in the form an
/// offline recording stores it: the timestamp in double precision, each reading in single
/// precision (see ``OfflineAttitudeRecording`` for why that loses nothing a sensor resolves).
package struct OfflineAttitudeSample: Sendable, Equatable, BitwiseCopyable {
  /// s.
  package var timestamp: Double
  /// Raw rate, rad/s.
  package var gyroscope: SinglePrecisionVector3
  /// Specific force, m/s².
  package var accelerometer: SinglePrecisionVector3
  /// Raw field, µT; zero in a six-axis recording.
  package var magnetometer: SinglePrecisionVector3

  /// The sample, or `nil` when a recording must refuse it: a time that is not finite or does not
  /// come after `previousTimestamp`, a reading that is not finite in single precision (beyond
  /// about 3.4e38), or a magnetometer present in a six-axis recording or missing in a nine-axis
  /// one.
  package init?(
    timestamp: Double, gyroscope: SIMD3<Double>, accelerometer: SIMD3<Double>,
    magnetometer: SIMD3<Double>?, hasMagnetometer: Bool, after previousTimestamp: Double
  ) {
    guard timestamp.isFinite, timestamp > previousTimestamp,
      (magnetometer != nil) == hasMagnetometer
    else { return nil }
    self.timestamp = timestamp
    self.gyroscope = SinglePrecisionVector3(gyroscope)
    self.accelerometer = SinglePrecisionVector3(accelerometer)
    self.magnetometer = SinglePrecisionVector3(magnetometer ?? .zero)
    guard self.gyroscope.isFinite, self.accelerometer.isFinite, self.magnetometer.isFinite else {
      return nil
    }
  }
}
