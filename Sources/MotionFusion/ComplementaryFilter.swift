// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// A baseline complementary attitude filter: gyroscope integration, a slow tilt correction toward
/// the measured gravity direction, a slow heading correction toward magnetic north, and gyroscope
/// bias estimation while the device is at rest.
///
/// It follows the classic structure (Mahony et al. 2008; the first-order decoupled corrections of
/// Laidig & Seel 2023): corrections are small rotations about the vertical (heading) and about a
/// horizontal axis (tilt), so the magnetometer can never disturb the inclination.
public struct ComplementaryFilter: Sendable {
  /// Tuning values, each with its unit.
  public struct Parameters: Sendable, Equatable {
    /// Time constant of the tilt correction toward gravity, s. Default: 3 s.
    public var accelerometerTimeConstant = 3.0
    /// Time constant of the heading correction toward magnetic north, s. Default: 9 s.
    public var magnetometerTimeConstant = 9.0
    /// Accelerometer samples whose length differs from 1 g by more than this are not used for
    /// tilt correction, m/s². Default: 2 m/s².
    public var accelerationRejectionThreshold = 2.0
    /// Rest: the gyroscope norm stays below this, rad/s. Default: 2°/s.
    public var restGyroscopeThreshold = 2.0 * Units.radiansPerDegree
    /// Rest: the accelerometer stays within this of its running mean, m/s². Default: 0.5 m/s².
    public var restAccelerationThreshold = 0.5
    /// Rest must last this long before it is declared, s. Default: 1.5 s.
    public var restMinimumDuration = 1.5
    /// Time constant of the bias estimate while at rest, s. Default: 2 s.
    public var restBiasTimeConstant = 2.0
    /// The heading correction pauses when the field's norm differs from its reference by more
    /// than this fraction. Default: 0.1.
    public var magneticNormTolerance = 0.1
    /// The heading correction pauses when the dip angle differs from its reference by more than
    /// this, rad. Default: 10°.
    public var magneticDipTolerance = 10 * Units.radiansPerDegree
    /// A gap longer than this re-initialises the attitude from the next sample, s. Default: 2 s.
    public var reinitializationGap = 2.0

    public init() {}

    /// The default tuning.
    public static let `default` = Parameters()
  }

  /// Per-sample gains derived from the parameters and the sample period.
  public struct Coefficients: Sendable, Equatable {
    public var samplePeriod: Double
    /// Fraction of the tilt error removed per sample.
    public var accelerometerGain: Double
    /// Fraction of the heading error removed per sample.
    public var magnetometerGain: Double
    /// Fraction of the bias error removed per rest sample.
    public var restBiasGain: Double

    public init(parameters p: Parameters, samplePeriod: Double) {
      self.samplePeriod = samplePeriod
      accelerometerGain = Self.gain(timeConstant: p.accelerometerTimeConstant, samplePeriod: samplePeriod)
      magnetometerGain = Self.gain(timeConstant: p.magnetometerTimeConstant, samplePeriod: samplePeriod)
      restBiasGain = Self.gain(timeConstant: p.restBiasTimeConstant, samplePeriod: samplePeriod)
    }

    /// The gain of a first-order low-pass with time constant `timeConstant` (s) sampled every
    /// `samplePeriod` (s): `1 − exp(−T/τ)`; 1 (pass-through) when τ is not positive.
    public static func gain(timeConstant: Double, samplePeriod: Double) -> Double {
      guard timeConstant > 0 else { return 1 }
      return 1 - Double.exp(-samplePeriod / timeConstant)
    }
  }

  /// Everything that changes from sample to sample.
  public struct State: Sendable {
    public var earthFromSensor = Quaternion.identity
    public var isInitialized = false
    /// Rotation about z (rad) from the 6D earth frame to the magnetic-north frame.
    public var headingOffset = 0.0
    public var isHeadingInitialized = false
    public var gyroscopeBias = SIMD3<Double>.zero
    public var lastTimestamp: Double?
    public var isRestDetected = false
    public var restDuration = 0.0
    public var meanAcceleration = SIMD3<Double>.zero
    public var referenceFieldNorm: Double?
    public var referenceDip: Double?
    public var isMagneticDisturbanceDetected = false
    public var lastMagneticField: SIMD3<Double>?
    public var diagnostics = FusionDiagnostics()

    public init() {}
  }

  public let parameters: Parameters
  public private(set) var coefficients: Coefficients
  public private(set) var state = State()

  public init(parameters: Parameters = .default, samplePeriod: Double) {
    self.parameters = parameters
    self.coefficients = Coefficients(parameters: parameters, samplePeriod: samplePeriod)
  }

  public mutating func update(
    timestamp: Double,
    gyroscope: SIMD3<Double>,
    accelerometer: SIMD3<Double>,
    magnetometer: SIMD3<Double>?
  ) {
    guard timestamp.isFinite, gyroscope.isFinite, accelerometer.isFinite,
      magnetometer?.isFinite ?? true
    else {
      state.diagnostics.nonFiniteSamples += 1
      return
    }
    guard accelerometer.lengthSquared > 1e-6 else {
      state.diagnostics.zeroAccelerometerSamples += 1
      return
    }
    var dt = coefficients.samplePeriod
    if let last = state.lastTimestamp {
      guard timestamp > last else {
        state.diagnostics.outOfOrderSamples += 1
        return
      }
      dt = timestamp - last
      if dt > parameters.reinitializationGap {
        state.diagnostics.gaps += 1
        state.isInitialized = false
        state.isHeadingInitialized = false
        dt = coefficients.samplePeriod
      }
    }
    state.lastTimestamp = timestamp
    state.diagnostics.acceptedSamples += 1
    // Gains are derived for the nominal period; scale them for irregular spacing.
    let scale = dt / coefficients.samplePeriod

    if !state.isInitialized {
      initializeTilt(from: accelerometer)
    } else {
      let rate = gyroscope - state.gyroscopeBias
      state.earthFromSensor = (state.earthFromSensor * Quaternion(rotationVector: rate * dt)).normalized
      correctTilt(accelerometer, gain: Swift.min(1, coefficients.accelerometerGain * scale))
    }
    updateRest(gyroscope: gyroscope, accelerometer: accelerometer, dt: dt)
    if let magnetometer, magnetometer.lengthSquared > 1e-12 {
      correctHeading(magnetometer, gain: Swift.min(1, coefficients.magnetometerGain * scale))
    }
  }

  private mutating func initializeTilt(from accelerometer: SIMD3<Double>) {
    // The shortest rotation that takes the measured "up" to earth z keeps the heading at zero
    // for any attitude that is not upside down.
    state.earthFromSensor = Quaternion(rotating: accelerometer, to: SIMD3(0, 0, 1))
    state.meanAcceleration = accelerometer
    state.isInitialized = true
  }

  private mutating func correctTilt(_ accelerometer: SIMD3<Double>, gain: Double) {
    let norm = accelerometer.length
    guard Swift.abs(norm - Units.standardGravity) < parameters.accelerationRejectionThreshold else {
      return
    }
    let upInEarth = state.earthFromSensor.act(on: accelerometer / norm)
    // The small rotation that takes the estimated "up" toward earth z, about a horizontal axis.
    let axis = upInEarth.cross(SIMD3(0, 0, 1))
    let sine = axis.length
    guard sine > 1e-12 else { return }
    let angle = Double.atan2(sine, upInEarth.z)
    let correction = Quaternion(angle: gain * angle, axis: axis)
    state.earthFromSensor = (correction * state.earthFromSensor).normalized
  }

  private mutating func updateRest(gyroscope: SIMD3<Double>, accelerometer: SIMD3<Double>, dt: Double) {
    let meanGain = Coefficients.gain(timeConstant: 0.5, samplePeriod: dt)
    state.meanAcceleration += meanGain * (accelerometer - state.meanAcceleration)
    let still = gyroscope.length < parameters.restGyroscopeThreshold
      && (accelerometer - state.meanAcceleration).length < parameters.restAccelerationThreshold
    state.restDuration = still ? state.restDuration + dt : 0
    state.isRestDetected = state.restDuration >= parameters.restMinimumDuration
    if state.isRestDetected {
      let gain = Swift.min(1, coefficients.restBiasGain * dt / coefficients.samplePeriod)
      state.gyroscopeBias += gain * (gyroscope - state.gyroscopeBias)
    }
  }

  private mutating func correctHeading(_ magnetometer: SIMD3<Double>, gain: Double) {
    state.lastMagneticField = magnetometer
    let fieldInEarth = state.earthFromSensor.act(on: magnetometer)
    let norm = fieldInEarth.length
    let horizontal = (fieldInEarth.x * fieldInEarth.x + fieldInEarth.y * fieldInEarth.y).squareRoot()
    guard horizontal > 1e-9 else { return }
    let dip = Double.atan2(-fieldInEarth.z, horizontal)
    // The heading offset that turns the horizontal field onto +x (north).
    let target = -Double.atan2(fieldInEarth.y, fieldInEarth.x)

    guard state.isHeadingInitialized, let referenceNorm = state.referenceFieldNorm,
      let referenceDip = state.referenceDip
    else {
      state.headingOffset = target
      state.referenceFieldNorm = norm
      state.referenceDip = dip
      state.isHeadingInitialized = true
      return
    }
    let disturbed = Swift.abs(norm - referenceNorm) > parameters.magneticNormTolerance * referenceNorm
      || Swift.abs(dip - referenceDip) > parameters.magneticDipTolerance
    state.isMagneticDisturbanceDetected = disturbed
    if disturbed { return }
    // Follow slow, genuine changes of the reference field.
    state.referenceFieldNorm = referenceNorm + 0.001 * (norm - referenceNorm)
    state.referenceDip = referenceDip + 0.001 * (dip - referenceDip)
    state.headingOffset = Units.wrapToPi(
      state.headingOffset + gain * Units.wrapToPi(target - state.headingOffset))
  }
}
