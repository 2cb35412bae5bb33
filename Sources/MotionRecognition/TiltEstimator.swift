// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Turns gravity into a steering input: left/right and forward/back tilt, each normalised to
/// −1…1.
///
/// Gravity (g, Core Motion's sign) is first rotated so that the ``neutral`` direction (default
/// face up, (0, 0, −1)) becomes straight down the −z axis. ``Tilt/lateral`` is then the angle of
/// the right side (+x) below the horizontal and ``Tilt/longitudinal`` the angle of the top edge
/// (+y) below it, each mapped linearly from ``Parameters/deadZone`` (2°) to
/// ``Parameters/maximumAngle`` (30°) onto 0…1, with the sign kept and clamped to ±1. An optional
/// first-order low-pass (``Parameters/smoothingCutoff``, default 5 Hz) steadies the result.
///
/// A gravity reading with a NaN or infinite component is skipped: the smoothing state and the
/// time of the last reading are kept, and the tilt of the current smoothed gravity is returned
/// (``Tilt/level`` without smoothing or before the first usable reading). Taken in, it would make
/// every later smoothed tilt NaN.
public struct TiltEstimator: Sendable {
  /// A steering input.
  public struct Tilt: Sendable, Hashable {
    /// Right side down is positive, left side down negative; −1…1.
    public var lateral: Double
    /// Top edge down (tipped forward, away from the user) is positive; −1…1.
    public var longitudinal: Double

    /// Creates a tilt value.
    public init(lateral: Double, longitudinal: Double) {
      self.lateral = lateral
      self.longitudinal = longitudinal
    }

    /// No tilt.
    public static let level = Tilt(lateral: 0, longitudinal: 0)
  }

  /// The estimator's tuning, in radians and Hz.
  public struct Parameters: Sendable, Hashable {
    /// Tilt giving a full-scale (±1) output, radians. Default 30°.
    public var maximumAngle: Double
    /// Tilt below which the output is zero, radians. Default 2°.
    public var deadZone: Double
    /// Cut-off of the smoothing low-pass in Hz, or `nil` for none. Default 5 Hz.
    public var smoothingCutoff: Double?

    /// Creates parameters; see the properties for units and defaults.
    public init(
      maximumAngle: Double = 30 * Units.radiansPerDegree,
      deadZone: Double = 2 * Units.radiansPerDegree,
      smoothingCutoff: Double? = 5
    ) {
      self.maximumAngle = maximumAngle
      self.deadZone = deadZone
      self.smoothingCutoff = smoothingCutoff
    }

    /// The defaults.
    public static let `default` = Parameters()
  }

  /// The tuning.
  public var parameters: Parameters
  /// The gravity direction (device coordinates) that means "no tilt". Default face up (0, 0, −1).
  public private(set) var neutral = SIMD3<Double>(0, 0, -1)
  private var levelFromDevice = Quaternion.identity
  private var smoother: FirstOrderLowPassFilter<SIMD3<Double>>?
  private var lastTimestamp: Double?

  /// Creates an estimator with the given parameters (default ``Parameters/default``).
  public init(parameters: Parameters = .default) {
    self.parameters = parameters
    if let cutoff = parameters.smoothingCutoff {
      smoother = FirstOrderLowPassFilter(cutoffFrequency: cutoff, sampleRate: 100)
    }
  }

  /// Makes `gravity` (g, Core Motion's sign, device coordinates) the neutral, untilted direction,
  /// e.g. the way the user holds the device when a game starts.
  public mutating func calibrate(neutral gravity: SIMD3<Double>) {
    guard gravity.normalized != .zero else { return }
    neutral = gravity.normalized
    levelFromDevice = Quaternion(rotating: neutral, to: SIMD3(0, 0, -1))
  }

  /// Forgets the smoothing state (the neutral direction is kept).
  public mutating func reset() {
    smoother?.reset()
    lastTimestamp = nil
  }

  /// The tilt for one gravity reading (g, Core Motion's sign) taken at `timestamp` seconds.
  public mutating func update(gravity: SIMD3<Double>, timestamp: Double) -> Tilt {
    // A non-finite reading would poison the smoothing: skip it (see the type's documentation).
    guard gravity.isFinite else { return smoother?.value.map { tilt(ofGravity: $0) } ?? .level }
    var g = gravity
    if smoother != nil {
      let period = lastTimestamp.map { timestamp - $0 } ?? 0.01
      g = smoother!.update(gravity, samplePeriod: period > 0 ? period : 0.01)
    }
    lastTimestamp = timestamp
    return tilt(ofGravity: g)
  }

  /// The tilt for `gravity` without smoothing.
  public func tilt(ofGravity gravity: SIMD3<Double>) -> Tilt {
    let level = levelFromDevice.act(on: gravity.normalized)
    guard level != .zero else { return .level }
    return Tilt(
      lateral: scaled(Double.asin(Swift.min(1, Swift.max(-1, level.x)))),
      longitudinal: scaled(Double.asin(Swift.min(1, Swift.max(-1, level.y)))))
  }

  private func scaled(_ angle: Double) -> Double {
    let magnitude = Swift.abs(angle)
    guard magnitude > parameters.deadZone else { return 0 }
    let span = Swift.max(parameters.maximumAngle - parameters.deadZone, 1e-9)
    let value = Swift.min(1, (magnitude - parameters.deadZone) / span)
    return angle < 0 ? -value : value
  }
}
