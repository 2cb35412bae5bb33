// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension AttitudeEstimator {
  /// Everything the estimator carries from one sample to the next.
  public struct State: Sendable {
    /// Whether any sample has been accepted since the start or the last restart.
    public var isInitialized = false
    /// Timestamp of the last accepted sample, s.
    public var lastTimestamp: Double?

    /// Strapdown-integrated gyroscope attitude: sensor to the almost-inertial frame.
    public var inertialFromSensor = Quaternion.identity
    /// Inclination correction: almost-inertial frame to the 6D earth frame.
    public var earthFromInertial = Quaternion.identity
    /// Rotation about the vertical (rad) from the 6D earth frame to the magnetic-north frame.
    public var headingOffset = 0.0
    /// The same rotation as a quaternion (kept in step with ``headingOffset``).
    public var headingRotation = Quaternion.identity

    /// Rotation over the gyroscope delay at the latest rate (sensor frame), applied to
    /// the outputs; identity when the delay is zero.
    public var outputPrediction = Quaternion.identity
    /// The previous sample's bias-corrected rotation increment (rate × interval), rad, for the
    /// coning correction.
    public var previousIncrement = SIMD3<Double>.zero
    /// Rotation vector (rad, sensor frame) from the instant the latest accelerometer sample
    /// describes (``Parameters/sampleAveragingLag``) to the instant the outputs describe (the
    /// sample's timestamp plus ``Parameters/gyroscopeDelay``), at the latest bias-corrected rate.
    public var sampleToOutputRotation = SIMD3<Double>.zero

    /// The last timestamp seen from a sensor on its own clock and the interval before it, s.
    public struct SensorClock: Sendable, Equatable {
      /// The sensor's latest sample time, s on its own clock; `nil` before its first sample.
      public var timestamp: Double?
      /// The interval between its last two distinct samples, s; 0 while unknown (one sample so far,
      /// or a gap longer than the limit).
      public var interval = 0.0

      package init() {}

      /// Notes a sample stamped `sampleTimestamp` (nil or non-finite: none; within a microsecond
      /// of the last one: the same, held sample, whose timestamp a recording may have stored as an
      /// age in single precision). An interval longer than `limit` (a gap) is unknown (0).
      package mutating func observe(_ sampleTimestamp: Double?, limit: Double) {
        guard let sampleTimestamp, sampleTimestamp.isFinite else { return }
        if let last = timestamp, Swift.abs(sampleTimestamp - last) <= 1e-6 { return }
        if let last = timestamp, sampleTimestamp > last {
          let gap = sampleTimestamp - last
          interval = gap <= limit ? gap : 0
        }
        timestamp = sampleTimestamp
      }
    }
    /// The accelerometer's own clock, when it has one (see `update`'s `accelerometerTimestamp`).
    public var accelerometerClock = SensorClock()
    /// The magnetometer's own clock, when it has one.
    public var magnetometerClock = SensorClock()
    /// Gyroscope bias estimate, rad/s.
    public var gyroscopeBias = SIMD3<Double>.zero
    /// Covariance of the bias estimate, (rad/s)².
    var biasCovariance = Matrix3.diagonal(0)
    /// Low-pass filtered specific force in the almost-inertial frame, m/s².
    var inertialAcceleration = LowPassFilter3(timeConstant: 0, samplePeriod: 1)
    /// Low-pass filtered first and second rows of the 6D attitude matrix and of the matrix
    /// times the bias estimate (the motion bias measurement model).
    var attitudeRow1 = LowPassFilter3(timeConstant: 0, samplePeriod: 1)
    var attitudeRow2 = LowPassFilter3(timeConstant: 0, samplePeriod: 1)
    var attitudeTimesBias = LowPassFilter3(timeConstant: 0, samplePeriod: 1)
    /// Low-pass filtered squared angular rate (bias removed), (rad/s)².
    var meanSquaredRate = 0.0
    /// Low-pass filtered squared deviation of the accelerometer from its low-pass value, (m/s²)².
    var meanSquaredAccelerationDeviation = 0.0
    /// Earth-frame rotation vector of the latest inclination correction, rad.
    public var lastInclinationCorrection = SIMD3<Double>.zero

    /// Rest detection filters and status.
    var restGyroscope = LowPassFilter3(timeConstant: 0, samplePeriod: 1)
    var restAccelerometer = LowPassFilter3(timeConstant: 0, samplePeriod: 1)
    public var restDuration = 0.0
    /// Whether the device has been at rest (gyroscope and accelerometer steady) for at least
    /// ``Parameters/restMinimumDuration`` (``restDuration``, s, is how long so far).
    public var isRestDetected = false

    /// Magnetic heading and disturbance tracking.
    public var isHeadingInitialized = false
    var headingSampleCount = 0
    /// Variance of the magnetic heading's error, rad² (a uniform heading's π²/3 before the first
    /// correction), and its covariance with the error of the bias about the vertical, rad²/s:
    /// a bias error makes the heading error grow in proportion to time, not to its square root.
    public var headingErrorVariance = Double.pi * Double.pi / 3
    var headingBiasCovariance = 0.0
    /// Low-pass filtered field norm (µT) and sine of the dip angle.
    public var currentFieldNorm = 0.0
    /// The sine of the current field's dip (inclination) angle, positive downwards, low-pass
    /// filtered like the norm.
    public var currentFieldDip = 0.0
    /// Reference field norm (µT) and sine of the dip angle.
    public var referenceFieldNorm = 0.0
    /// The sine of the reference field's dip angle, positive downwards.
    public var referenceFieldDip = 0.0
    /// Whether a reference field exists (from the first magnetometer samples, or seeded from a
    /// model); without one, no disturbance can be detected.
    public var hasFieldReference = false
    /// Whether the reference has been confirmed: seeded from a model, or the field stayed steady
    /// while the device turned (at ``Parameters/magneticNewFieldMinimumRate`` or faster) for
    /// ``Parameters/magneticFirstFieldTime`` in all; a device lying still never confirms it. A
    /// steady new field seen while the reference looks disturbed replaces it after that time of
    /// turning while unconfirmed, and after ``Parameters/magneticNewFieldTime`` once confirmed.
    public var isFieldReferenceConfirmed = false
    var candidateFieldNorm = 0.0
    var candidateFieldDip = 0.0
    var candidateFieldTime = 0.0
    var undisturbedTime = 0.0
    var rejectionTime = 0.0
    /// Whether the current field differs from the reference in norm or dip beyond the tolerances (a
    /// magnet, steel nearby): heading corrections are then held back, and let through at a reduced
    /// gain once it has lasted ``Parameters/magneticMaximumRejectionTime``.
    public var isMagneticDisturbanceDetected = false
    /// The last raw magnetometer sample, µT (sensor frame).
    public var lastMagneticField: SIMD3<Double>?
    /// The last magnetometer sample with the current calibration removed, µT (sensor frame).
    public var calibratedMagneticField: SIMD3<Double>? {
      lastMagneticField.map { magnetometerCalibrator.calibrate($0) }
    }
    var motionBiasCounter = 0
    var covarianceCounter = 0
    var covarianceTime = 0.0
    var magnetometerCounter = 0
    var magnetometerTime = 0.0
    /// The latest heading update's time over the nominal heading period.
    var headingPeriodRatio = 1.0
    /// Inclination corrections (rad) and time (s) summed since the last motion bias update.
    var correctionSum = SIMD3<Double>.zero
    var correctionTime = 0.0
    var restBiasCounter = 0

    /// Online hard/soft-iron calibration.
    public var magnetometerCalibrator = MagnetometerCalibrator()

    /// Counters of the inputs the estimator refused or repaired (implausible or non-finite samples,
    /// state resets).
    public var diagnostics = FusionDiagnostics()

    /// The largest accelerometer axis magnitude seen at or above the rail floor, m/s², and how
    /// many readings have equalled it (the range learned from the data). Kept across restarts:
    /// it belongs to the sensor, not to the attitude.
    var railCandidate = 0.0
    var railHits = 0
    /// The accelerometer range learned from repeated readings at the same largest magnitude,
    /// m/s² (``AttitudeEstimator/Parameters/learnsAccelerometerRail``); nil until learned.
    public var learnedAccelerometerRail: Double? = nil
    /// The clipping level in use: the declared range's, or the learned rail's when lower, m/s².
    var accelerometerClippingLevel = Double.infinity

    init() {}
  }
}
