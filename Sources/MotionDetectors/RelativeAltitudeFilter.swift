// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Relative altitude from barometer readings, as `CMAltitudeData.relativeAltitude` reports it:
/// metres since the first reading (which is 0), from the standard atmosphere
/// (``BarometricAltitude``), lightly smoothed.
///
/// The smoothing acts on the pressure (first-order low-pass, time constant in seconds, default 0.1
/// s), and the altitude is the standard-atmosphere difference of the *smoothed* pressure, so the
/// pair reported to apps (``smoothedPressure``, altitude) obeys the formula exactly, as iPhones'
/// pairs do. With a time constant in seconds the effect does not depend on the barometer's rate: at
/// 100 Hz it averages about ten readings (1 Pa of white noise, ≈ 8 cm, drops to ≈ 2.5 cm); at the
/// 1–25 Hz that phones deliver it changes nothing measurable. Readings outside
/// ``BarometricAltitude/plausiblePressureRange`` (not finite, not positive, or physically
/// impossible) are refused and leave the state as it was, so a later valid reading gives the
/// altitude it would have given without them; callers that read input count the refusals.
///
/// Times: a reading earlier than the latest one by at most ``timelineTolerance`` is out of order
/// and moves the smoothing by nothing; one earlier by more starts a new timeline (a clock that
/// restarted lower, or a single reading stamped far in the future, after which every reading would
/// otherwise count as earlier, be smoothed by nothing and leave the altitude frozen): the
/// smoothing restarts at that reading, and the reference (altitude 0) is kept.
public struct RelativeAltitudeFilter: Sendable {
  /// How much earlier than the latest reading a reading may be before it starts a new timeline,
  /// s: many times the smoothing's time constant, and more than the ordering jitter of a sensor
  /// stream (readings batched a little out of order).
  static let timelineTolerance = 1.0

  /// Tuning of the filter. Every value is used within the range its documentation gives (NaN:
  /// the default), as the other detectors' parameters are.
  public struct Parameters: Sendable, Equatable {
    /// Time constant of the smoothing, s; 0...60 (0 disables it). A minute is already far more
    /// than smoothing a barometer needs; beyond it the filter would barely move: an infinite or
    /// huge value blended every reading by 0 and froze the altitude at 0 for good.
    public var smoothingTimeConstant: Double = 0.1
    public init() {}
    public static let `default` = Parameters()

    /// The parameters within their documented ranges.
    func sanitized() -> Parameters {
      var p = Parameters()
      p.smoothingTimeConstant =
        smoothingTimeConstant.isNaN
        ? Parameters.default.smoothingTimeConstant
        : Swift.min(Swift.max(smoothingTimeConstant, 0), 60)
      return p
    }
  }

  public let parameters: Parameters
  /// ``parameters`` within their documented ranges: what the filter uses.
  private let tuning: Parameters
  /// The height of the first reading, m (standard atmosphere).
  public private(set) var referenceHeight: Double?
  /// The smoothed pressure, kPa (the first reading until a second arrives).
  public private(set) var smoothedPressure: Double?
  /// The latest relative altitude, m.
  public private(set) var relativeAltitude = 0.0
  private var lastTime: Double?

  public init(parameters: Parameters = .default) {
    self.parameters = parameters
    tuning = parameters.sanitized()
  }

  /// Feeds one reading (`time` s, `pressure` kPa) and returns the relative altitude in metres, or
  /// `nil` when the reading was refused (a time that is not finite, or a pressure outside
  /// ``BarometricAltitude/plausiblePressureRange``).
  public mutating func process(time: Double, pressure: Double) -> Double? {
    guard BarometricAltitude.isPlausible(pressure: pressure), time.isFinite else { return nil }
    guard let reference = referenceHeight, let previous = lastTime, let smoothed = smoothedPressure
    else {
      referenceHeight = BarometricAltitude.height(atPressure: pressure)
      smoothedPressure = pressure
      lastTime = time
      relativeAltitude = 0
      return 0
    }
    let newTimeline = previous - time > Self.timelineTolerance
    let period = Swift.max(0, time - previous)
    lastTime = newTimeline ? time : Swift.max(previous, time)
    let tau = tuning.smoothingTimeConstant
    // Exact discretisation of the first-order filter for this reading's period; on a new timeline
    // there is no period to smooth over, so the reading is taken as it is, as the first one is.
    let blend = newTimeline ? 1 : tau > 0 ? 1 - Double.exp(-period / tau) : 1
    let next = smoothed + (pressure - smoothed) * blend
    smoothedPressure = next
    relativeAltitude = BarometricAltitude.height(atPressure: next) - reference
    return relativeAltitude
  }

  /// Forgets the reference: the next reading becomes altitude 0.
  public mutating func reset() {
    self = RelativeAltitudeFilter(parameters: parameters)
  }
}
