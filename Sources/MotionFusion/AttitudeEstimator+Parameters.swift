// SPDX-License-Identifier: Apache-2.0

import MotionMath

extension AttitudeEstimator {
  /// The tuning of the attitude estimator, each value with its unit. One set (``default``) serves
  /// all devices and motions; it is not meant to be tuned per recording.
  public struct Parameters: Sendable, Equatable {
    // MARK: Inclination

    /// Time constant of the low-pass filter applied to the accelerometer in the almost-inertial
    /// frame, s; sets how quickly the inclination follows gravity and how strongly user
    /// accelerations are averaged out. Default: 3 s.
    public var accelerometerTimeConstant = 3.0

    // MARK: Heading

    /// Time constant of the heading correction toward magnetic north, s. Default: 9 s.
    public var magnetometerTimeConstant = 9.0

    // MARK: Gyroscope bias

    /// Standard deviation of the initial gyroscope-bias uncertainty, rad/s. Default: 0.5°/s.
    public var biasInitialSigma = 0.5 * Units.radiansPerDegree
    /// Time without bias information after which the bias uncertainty has grown back by
    /// ``biasInitialSigma``, s. Default: 100 s.
    public var biasForgettingTime = 100.0
    /// Largest bias magnitude the estimate may reach, per axis, rad/s. Default: 2°/s.
    public var biasLimit = 2.0 * Units.radiansPerDegree
    /// Noise density of the bias information gained from the inclination correction during
    /// motion, rad/s·√s: an update summing the corrections over Δt seconds has measurement
    /// standard deviation `density/√Δt`, so the information gathered per second does not depend
    /// on the sample rate. It also absorbs the residual user acceleration that the low-pass
    /// filter lets through. Default: 1°/s·√(1/286 s) ≈ 0.059°/s·√s (1°/s per sample at BROAD's
    /// 286 Hz, the value this was first tuned at).
    public var motionBiasNoiseDensity = 1.0 * Units.radiansPerDegree * (1.0 / 286).squareRoot()
    /// The motion bias noise grows with the recent angular rate as `σ·√(1 + (ω/ω₀)²)`, because
    /// gyroscope scale and misalignment errors look like bias during fast rotation; this is ω₀,
    /// rad/s. Default: 30°/s.
    public var motionBiasRateScale = 30 * Units.radiansPerDegree
    /// The motion bias noise also grows with the recent user acceleration (the accelerometer's
    /// deviation from its low-pass filtered value) as `σ·√(1 + … + (a/a₀)²)`; this is a₀, m/s².
    /// Default: 0.3 m/s².
    public var motionBiasAccelerationScale = 0.3
    /// Noise density of the low-pass filtered gyroscope as a bias measurement at rest,
    /// rad/s·√s (as ``motionBiasNoiseDensity``: rate-independent information per second).
    /// Default: 0.1°/s·√(1/286 s).
    public var restBiasNoiseDensity = 0.1 * Units.radiansPerDegree * (1.0 / 286).squareRoot()

    /// The bias Kalman updates (and their model filters) run about this often, each carrying the
    /// information of the samples in between (its measurement variance scales with the summed
    /// time, so the information per second is the same at any rate), s. A time, not a number of
    /// samples, so that the bias filter's dynamics do not change with the sample rate; at least
    /// every sample, at most every 64th. The bias changes over minutes and the motion update's
    /// model filters have the accelerometer's 3 s time constant, so a few updates per second
    /// lose nothing; more frequent updates let the bias chase the strongly correlated
    /// inclination corrections (measured on BROAD against 14 ms, 42 ms and 0.1 s at 286, 95, 48
    /// and 20 Hz: within 0.01° of the best in every mean, the best total at 20 Hz, where
    /// updating about every sample costs 0.15°). Default: 0.2 s.
    public var biasUpdatePeriod = 0.2

    // MARK: Rest detection

    /// Time constant of the low-pass filters used for rest detection, s. Default: 0.5 s.
    public var restFilterTimeConstant = 0.5
    /// Rest: the low-pass filtered (raw) angular rate stays below this, rad/s. Default: 2°/s.
    public var restGyroscopeThreshold = 2.0 * Units.radiansPerDegree
    /// Rest: the angular rate stays within this of its low-pass filtered value, rad/s: the rate
    /// must be steady, not only small on average, or a sway (a phone in the pocket of someone
    /// standing) would be taken for rest and its rate learnt as bias. VQF tests the same
    /// deviation. Default: 2°/s.
    public var restGyroscopeDeviationThreshold = 2.0 * Units.radiansPerDegree
    /// Rest: the accelerometer stays within this of its low-pass filtered value, m/s².
    /// Default: 0.5 m/s².
    public var restAccelerometerThreshold = 0.5
    /// Rest must last this long before it is declared, s. Default: 1.5 s.
    public var restMinimumDuration = 1.5

    // MARK: Heading uncertainty
    /// White-noise density of the gyroscope, rad/s/√Hz: the random walk of the heading between
    /// magnetometer corrections (``AttitudeEstimator/headingUncertainty``). Default:
    /// 0.01°/s/√Hz (consumer MEMS datasheets give 0.004–0.015°/s/√Hz).
    public var gyroscopeNoiseDensity = 0.01 * Units.radiansPerDegree
    /// Relative uncertainty of the gyroscope's sensitivity: a turn of θ about the vertical moves
    /// the heading by up to this fraction of θ (counted on every turn, as a bound, since turns
    /// there and back need not cancel). Default: 1 % (datasheet sensitivity tolerances).
    public var gyroscopeScaleUncertainty = 0.01
    /// Standard deviation of the error a magnetic heading keeps, with a trusted calibration, that
    /// nothing here can observe, rad: a local distortion of the earth's field that leaves its
    /// strength and dip unchanged, and the calibration's residual. Default: 1°.
    public var calibratedHeadingSigma = 1 * Units.radiansPerDegree
    /// As ``calibratedHeadingSigma`` for a heading from the raw field of a magnetometer that
    /// comes calibrated (``rawFieldIsCalibrated``), before a calibration of our own is usable:
    /// what the sensor's own calibration leaves, which the disturbance rejection cannot see
    /// unless it changes the field's strength or dip. Default: 3°.
    public var uncalibratedHeadingSigma = 3 * Units.radiansPerDegree
    /// Whether the magnetometer's readings have the device's hard and soft iron removed already,
    /// by the sensor, its driver or whoever made the recording (BROAD's trials; the calibrated
    /// field Android's magnetic-field sensor reports), so that a heading from the raw field is
    /// good to ``uncalibratedHeadingSigma`` before a calibration of our own is usable.
    ///
    /// Off by default, because a raw field usually is not calibrated (a Linux IIO magnetometer,
    /// an uncalibrated phone stream, the simulated phone): a hard iron of tens of µT biases its
    /// heading by tens of degrees, and nothing can fit it before the device turns through
    /// enough orientations. Nothing can check it either: a still device with an unfitted hard
    /// iron sees a field as steady as a calibrated one's. So until the heading uses a
    /// calibration (``usesCalibratedFieldForHeading``, ``MagnetometerCalibrator/isUsableForHeading``)
    /// its error has no bound to report, and ``AttitudeEstimator/headingUncertainty`` is `nil`
    /// (`CMDeviceMotion.headingAccuracy` negative: the heading is invalid, as `CLHeading` says of
    /// an uncalibrated compass). The heading itself is the same either way.
    public var rawFieldIsCalibrated = false

    // MARK: Magnetic disturbances

    /// Time constant of the low-pass filter on the current field norm and dip, s. Default: 0.05 s.
    public var magneticCurrentTimeConstant = 0.05
    /// Time constant with which the reference norm and dip follow an undisturbed field, s.
    /// Default: 20 s.
    public var magneticReferenceTimeConstant = 20.0
    /// The field is disturbed when its norm differs from the reference by more than this
    /// fraction of the reference. Default: 0.1.
    public var magneticNormTolerance = 0.1
    /// The field is disturbed when its dip angle differs from the reference by more than this,
    /// rad. Default: 10°.
    public var magneticDipTolerance = 10 * Units.radiansPerDegree
    /// A different but steady field seen during this much motion replaces the reference, s.
    /// Default: 20 s.
    public var magneticNewFieldTime = 20.0
    /// As ``magneticNewFieldTime`` while the first reference is still unconfirmed, s. Default: 5 s.
    public var magneticFirstFieldTime = 5.0
    /// Motion counts toward accepting a new field only above this angular rate, rad/s.
    /// Default: 20°/s.
    public var magneticNewFieldMinimumRate = 20 * Units.radiansPerDegree
    /// Heading corrections resume only after the field has been undisturbed this long, s.
    /// Default: 0.5 s.
    public var magneticMinimumUndisturbedTime = 0.5
    /// After this much rejection, heading corrections resume at a reduced gain even though the
    /// field looks disturbed, s. Default: 60 s.
    public var magneticMaximumRejectionTime = 60.0
    /// Gain reduction after ``magneticMaximumRejectionTime``, and how much faster the rejection
    /// budget refills than it drains. Default: 2.
    public var magneticRejectionFactor = 2.0

    /// Whether the heading uses the online-calibrated field instead of the raw one once the
    /// calibration is trusted (``MagnetometerCalibrator/isTrustedForHeading``: fitted at medium
    /// accuracy or better). The calibration always runs (for the reported accuracy and
    /// calibrated field). Untrusted (low-accuracy) fits never reach the heading, because on
    /// factory-calibrated sensors their few-µT error costs more heading accuracy than it gains;
    /// without a trusted calibration a phone's uncorrected hard iron (tens of µT) would bias
    /// the heading by ten degrees or more. A horizontal-only calibration (fitted while turning
    /// about the vertical, ``MagnetometerCalibrator/isHorizontalCalibrationInUse``) is used too:
    /// the offset it leaves along the vertical does not bias the heading. Default: true.
    public var usesCalibratedFieldForHeading = true

    /// Delay of the gyroscope relative to the other sensors and to the instant the outputs
    /// should describe, s. The outputs (not the filter) are extrapolated over it at the latest
    /// angular rate. A MEMS gyroscope's digital filter delays its rate by a few milliseconds
    /// whatever rate the samples are read at; a rate averaged over a longer reading interval
    /// (a slower output rate) integrates to the right rotation at the interval's end and adds no
    /// further delay, so this is a time, not a number of samples. Set 0 for a gyroscope whose
    /// interval means are in step with the accelerometer. Rates that are instants rather than
    /// interval means (Core Motion's own device-motion `rotationRate`) put the integrated
    /// attitude half a sample period ahead of its timestamp: for them use minus half their
    /// period (``deviceMotionInstants`` does, through ``gyroscopeDelayIntervals``;
    /// `FusionAppleAgreement.deviceMotionParameters(rowPeriod:)` in MotionEvaluation does it here
    /// in seconds, for rows averaged down; measured in `Benchmarks/fusion-comparison/README.md`). Default: 1.75 ms (half a
    /// period of BROAD's 286 Hz sensor, where it was measured against the optical reference).
    public var gyroscopeDelay = 0.5 / 286

    /// A further gyroscope delay as a share of the current sample interval (the time since the
    /// previous gyroscope sample), added to ``gyroscopeDelay``. For rates that are instants rather
    /// than interval means the lead is half of *their* interval whatever the rate, which the
    /// recording's own rows tell only once they are read: Core Motion's device-motion
    /// `rotationRate` replayed through `CMMotionManager`'s fusion uses −0.5 with a
    /// ``gyroscopeDelay`` of 0 (``deviceMotionInstants``). Default: 0.
    public var gyroscopeDelayIntervals = 0.0

    /// Where an accelerometer or magnetometer sample lies in its sample interval, as the share of
    /// the interval before its timestamp. The gyroscope's rate is integrated over the whole
    /// interval, so the attitude it gives describes the interval's end; a vector sensor that
    /// averages over its reading interval (its output filter at a slower rate, or samples
    /// averaged down to a lower rate) reports the middle of it. Each such sample is compared with
    /// the attitude turned back by this share of the interval's rotation: at 20 Hz and 90°/s, 1.1°
    /// of rotation. 0 compares it with the interval's end. Default: 0.5.
    public var sampleAveragingLag = 0.5

    /// Delay of the magnetometer behind the gyroscope, s, on top of ``sampleAveragingLag``: the
    /// field is compared with the attitude this much earlier. A magnetometer usually reads at a
    /// lower rate and through a longer filter than the gyroscope. Default: 8 ms, measured on
    /// BROAD's sensor against the optical reference (see `Benchmarks/fusion-comparison`); set 0
    /// for a magnetometer sampled in step with the gyroscope.
    public var magnetometerDelay = 0.008

    // MARK: Robustness

    /// A gap between samples longer than this restarts the attitude (the bias is kept), s.
    /// Default: 1 s.
    public var reinitializationGap = 1.0
    /// Gyroscope readings at or beyond this magnitude on any axis count as saturated, rad/s.
    /// Default: 2000°/s (a common full-scale range).
    public var gyroscopeSaturation = 2000 * Units.radiansPerDegree
    /// Full-scale range of the accelerometer, m/s² (the largest magnitude any axis can report;
    /// set it to the source's declared range: phones use ±8 g or ±16 g). A reading at the range
    /// is clipped: the true specific force may be anywhere beyond it, so that sample's
    /// accelerometer says nothing reliable about gravity (a clipped running impact also shortens
    /// one axis and tilts the whole vector). Default: 16 g.
    public var accelerometerRange = 16 * Units.standardGravity
    /// A reading counts as clipped when any axis is at or beyond
    /// ``accelerometerRange`` × (1 − this): sensors rarely report exactly their nominal range
    /// after their factory scale calibration (a few per cent). Default: 0.02.
    public var accelerometerClippingMargin = 0.02
    /// Whether the accelerometer's range is also learned from the data: a saturated axis
    /// reports exactly its limit, so a magnitude (at least ``accelerometerRailFloor``) that
    /// equals the largest magnitude seen so far ``accelerometerRailRepeats`` times is taken as
    /// the range (the smaller of it and ``accelerometerRange``) until a larger reading proves it
    /// was not one. Sources seldom declare their range, and a phone saturating at ±8 g under the
    /// 16 g default would otherwise go unnoticed. Default: true.
    public var learnsAccelerometerRail = true
    /// Smallest magnitude that can be a learned range, m/s²: no phone or IMU accelerometer
    /// saturates below ±2 g, and repeated values near 1 g are common at rest. Default: 3 g.
    public var accelerometerRailFloor = 3 * Units.standardGravity
    /// How many readings at the largest magnitude seen so far make it the learned range (a
    /// count of readings at the rail, not of samples over time: readings off the rail do not
    /// reset it). Continuous peaks essentially never repeat the running maximum exactly, a
    /// sensor stuck at its limit does on every clipped sample. Default: 3.
    public var accelerometerRailRepeats = 3
    /// Relative tolerance for a reading to equal the running maximum: allows for float
    /// conversions and unit scaling on the way from the sensor, far below any sensor's
    /// resolution at several g. Default: 1e-6.
    public var accelerometerRailTolerance = 1e-6

    /// Gyroscope readings beyond this magnitude on any axis are physically impossible for a
    /// MEMS gyroscope (the widest ranges end at 4000°/s): the whole sample is rejected before it
    /// reaches the state, rad/s. Default: 100 rad/s (≈ 5700°/s).
    public var gyroscopePlausibleLimit = 100.0
    /// Accelerometer readings beyond this magnitude on any axis are rejected with their sample,
    /// m/s². Default: 1000 m/s² (≈ 100 g; phone and IMU accelerometers end at 8–32 g).
    public var accelerometerPlausibleLimit = 1000.0
    /// Magnetometer readings beyond this magnitude on any axis are ignored (the gyroscope and
    /// accelerometer of the sample are still used), µT. Default: 10 000 µT (phone magnetometers
    /// saturate near 5 000 µT; the earth's field is under 70 µT).
    public var magnetometerPlausibleLimit = 10_000.0

    /// The online magnetometer calibration's tuning.
    public var magnetometerCalibration = MagnetometerCalibrator.Parameters.default

    /// The default tuning.
    public init() {}

    /// The default tuning (restated: every property's documented default).
    public static let `default` = Parameters()
  }
}
