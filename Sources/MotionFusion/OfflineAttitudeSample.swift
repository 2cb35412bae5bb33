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
  /// How long before `timestamp` the accelerometer and the magnetometer reading were stamped, s
  /// (0 when they tick with the gyroscope; see ``OfflineAttitudeInputs/accelerometerAge(at:)``).
  package var accelerometerAge: Float
  package var magnetometerAge: Float

  /// Whether a reading was stamped before `timestamp` (a sensor on its own clock).
  package var hasAge: Bool { accelerometerAge != 0 || magnetometerAge != 0 }

  /// The sample, or `nil` when a recording must refuse it: a time that is not finite or does not
  /// come after `previousTimestamp`, a reading that is not finite in single precision (beyond
  /// about 3.4e38), or a magnetometer present in a six-axis recording or missing in a nine-axis
  /// one. Ages are kept within 0…1e6 s (a non-finite one counts as 0).
  package init?(
    timestamp: Double, gyroscope: SIMD3<Double>, accelerometer: SIMD3<Double>,
    magnetometer: SIMD3<Double>?, hasMagnetometer: Bool, after previousTimestamp: Double,
    accelerometerAge: Double = 0, magnetometerAge: Double = 0
  ) {
    guard timestamp.isFinite, timestamp > previousTimestamp,
      (magnetometer != nil) == hasMagnetometer
    else { return nil }
    func stored(_ age: Double) -> Float {
      age.isFinite ? Float(Swift.min(Swift.max(age, 0), 1e6)) : 0
    }
    self.accelerometerAge = stored(accelerometerAge)
    self.magnetometerAge = stored(magnetometerAge)
    self.timestamp = timestamp
    self.gyroscope = SinglePrecisionVector3(gyroscope)
    self.accelerometer = SinglePrecisionVector3(accelerometer)
    self.magnetometer = SinglePrecisionVector3(magnetometer ?? .zero)
    guard self.gyroscope.isFinite, self.accelerometer.isFinite, self.magnetometer.isFinite else {
      return nil
    }
  }
}
