// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// The attitude estimator behind `CMDeviceMotion`: gyroscope, accelerometer and (optionally)
/// magnetometer in, attitude, gyroscope bias and calibrated field out.
///
/// This is the stable face of `MotionFusion`; the algorithm behind it may change, this interface
/// should not. It is a value type fed one sample at a time with explicit timestamps and never sees
/// a sensor source.
///
/// Inputs, all in the sensor frame:
/// - gyroscope: raw angular velocity, rad/s;
/// - accelerometer: specific force, m/s² (+9.81 on the up axis at rest);
/// - magnetometer: raw field in µT, or `nil` when there is none at this sample.
///
/// Outputs use OpenCoreMotion's earth frame (NWU: x north, y west, z up; see the Conventions
/// article in the OpenCoreMotion documentation): ``earthFromSensor6D`` has an arbitrary but steady
/// heading, ``earthFromSensor9D`` has x pointing to magnetic north once magnetometer data has
/// arrived.
public struct DeviceMotionEstimator: Sendable {
  /// The tuning in use.
  public let parameters: AttitudeEstimator.Parameters
  private var estimator: AttitudeEstimator

  /// Creates an estimator for samples nominally `samplePeriod` seconds apart.
  public init(samplePeriod: Double, parameters: AttitudeEstimator.Parameters = .default) {
    self.parameters = parameters
    self.estimator = AttitudeEstimator(parameters: parameters, samplePeriod: samplePeriod)
  }

  /// Feeds one sample. Non-finite or all-zero inputs and timestamps that do not move forward are
  /// skipped and counted in ``diagnostics``; they never reach the state.
  ///
  /// `accelerometerTimestamp` and `magnetometerTimestamp`: those samples' own timestamps when the
  /// sensors tick on their own clocks (the latest sample of each passed with every gyroscope
  /// sample); see ``AttitudeEstimator/update(timestamp:gyroscope:accelerometer:magnetometer:accelerometerTimestamp:magnetometerTimestamp:)``.
  public mutating func update(
    timestamp: Double,
    gyroscope: SIMD3<Double>,
    accelerometer: SIMD3<Double>,
    magnetometer: SIMD3<Double>?,
    accelerometerTimestamp: Double? = nil,
    magnetometerTimestamp: Double? = nil
  ) {
    estimator.update(
      timestamp: timestamp, gyroscope: gyroscope, accelerometer: accelerometer,
      magnetometer: magnetometer, accelerometerTimestamp: accelerometerTimestamp,
      magnetometerTimestamp: magnetometerTimestamp)
  }

  /// Attitude without magnetometer (sensor to earth; heading arbitrary, steady up to gyro drift).
  public var earthFromSensor6D: Quaternion { estimator.earthFromSensor6D }

  /// Attitude with magnetic heading (sensor to earth; x toward magnetic north). Equal to
  /// ``earthFromSensor6D`` until the first magnetometer sample.
  public var earthFromSensor9D: Quaternion { estimator.earthFromSensor9D }

  /// Gravitational acceleration in the sensor frame, m/s², pointing down (face up:
  /// (0, 0, −9.80665)), from the current attitude.
  public var gravity: SIMD3<Double> {
    estimator.earthFromSensor6D.conjugate.act(on: SIMD3(0, 0, -Units.standardGravity))
  }

  /// The device's own (kinematic) acceleration in the sensor frame, m/s², from the latest
  /// specific-force sample: the sample turned to the instant ``gravity`` describes
  /// (by ``AttitudeEstimator/State/sampleToOutputRotation``) plus ``gravity`` (zero at rest). Added to gravity
  /// unturned, a sample taken half an interval earlier would leave g times the rotation in between
  /// in the result (0.4 m/s² at 20 Hz and 90°/s).
  public func linearAcceleration(specificForce: SIMD3<Double>) -> SIMD3<Double> {
    estimator.atOutputInstant(specificForce) + gravity
  }

  /// Whether the magnetic heading has been initialised from magnetometer data.
  public var hasMagneticHeading: Bool { estimator.state.isHeadingInitialized }

  /// The estimated gyroscope bias in rad/s (subtract it from the raw rate).
  public var gyroscopeBias: SIMD3<Double> { estimator.gyroscopeBias }

  /// The magnetic field with the estimated device (hard/soft-iron) distortion removed, µT; `nil`
  /// before any magnetometer sample.
  public var calibratedMagneticField: SIMD3<Double>? { estimator.state.calibratedMagneticField }

  /// How well the magnetometer calibration is known (from the online calibration's fit quality
  /// and the range of orientations it has seen).
  public var magneticCalibrationAccuracy: MagneticCalibrationAccuracy {
    estimator.state.magnetometerCalibrator.accuracy
  }

  /// Whether heading referenced to magnetic north is not yet trustworthy and the device must be
  /// moved (turned through several orientations) first: true while there is no magnetic heading,
  /// while no full calibration fit exists (a horizontal-only one from turning about the vertical
  /// does not count), or while the field is judged disturbed. The API layer
  /// maps it to `CMErrorDeviceRequiresMovement` for the north-referenced frames.
  public var needsCalibrationMotion: Bool {
    !estimator.state.isHeadingInitialized
      || !estimator.state.magnetometerCalibrator.hasFullCalibrationFit
      || estimator.state.isMagneticDisturbanceDetected
  }

  /// Whether the device is currently judged to be at rest.
  public var isRestDetected: Bool { estimator.state.isRestDetected }

  /// Whether the current magnetic field is judged disturbed (heading correction paused).
  public var isMagneticDisturbanceDetected: Bool { estimator.state.isMagneticDisturbanceDetected }

  /// Counters of what was skipped and why.
  public var diagnostics: FusionDiagnostics { estimator.state.diagnostics }

  /// The underlying estimator, for inspection.
  public var attitudeEstimator: AttitudeEstimator { estimator }
}

/// Counters of inputs the estimator refused, for diagnostics and tests.
public struct FusionDiagnostics: Sendable, Equatable {
  /// Samples with a NaN or infinite value.
  public var nonFiniteSamples = 0
  /// Accelerometer samples of (almost) zero length.
  public var zeroAccelerometerSamples = 0
  /// Samples whose timestamp did not move forward.
  public var outOfOrderSamples = 0
  /// Gaps longer than the re-initialisation threshold, and timestamps earlier than the last one
  /// by more than it (a new timeline).
  public var gaps = 0
  /// Samples with a gyroscope or accelerometer axis at its saturation limit.
  public var saturatedSamples = 0
  /// Samples whose accelerometer was clipped (an axis at its range,
  /// ``AttitudeEstimator/Parameters/accelerometerRange`` less the margin): the attitude used the
  /// gyroscope alone for them (also counted in ``saturatedSamples``).
  public var clippedAccelerometerSamples = 0
  /// Samples accepted into the state.
  public var acceptedSamples = 0
  /// Samples (or magnetometer readings) rejected because a value was finite but beyond the
  /// sensor's physical range (``AttitudeEstimator/Parameters/gyroscopePlausibleLimit`` and
  /// its accelerometer and magnetometer counterparts).
  public var implausibleSamples = 0
  /// Restarts because the state stopped being finite (a safety net: rejected inputs should make
  /// this impossible).
  public var nonFiniteStateResets = 0

  public init() {}
}
