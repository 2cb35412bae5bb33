// SPDX-License-Identifier: Apache-2.0

/// Finds strides (a left and a right step) in the gyroscope of a phone that turns with a limb, in
/// a stream of rotation rates, causally.
///
/// Why: a phone in a trouser pocket turns with the thigh, and an arm swings a phone held in the
/// hand: either way the rotation rate about one axis goes through one cycle per stride. On stairs
/// the accelerometer can show one impact per stride, the other leg's step hardly at all
/// (MotionSense's pocket trials descending: 65 steps counted in 49 s where the thigh made 56
/// strides), and the rotation still shows every stride. ``StepDetector`` uses these strides to
/// count the steps its |a| missed (see ``StepDetector/process(time:rotationRate:)``).
///
/// How (on a uniform grid, ``Parameters/gridRate``, whatever the sensor rate):
/// 1. Each axis is resampled by linear interpolation and band-passed to the stride band
///    (``Parameters/strideBand``, causal second-order Butterworth sections).
/// 2. The axis that carries most of that motion is followed with a running covariance
///    (``Parameters/timeConstant``) and one power-iteration step per sample; the rate about it is
///    the stride signal, so the phone's orientation in the pocket does not matter.
/// 3. A stride begins where that signal rises above ``Parameters/hysteresis`` times its running
///    RMS after it has fallen below minus that: one event per cycle, whatever the signal's shape.
///
/// Input: `time` in s, increasing (repeated or slightly earlier times are skipped; one earlier by
/// more than ``Parameters/longestInputGap`` restarts the tracker, as does a gap longer than
/// that); `rotationRate` in rad/s, any sign convention and frame (sensor axes). Readings that are
/// not finite or beyond ``Parameters/implausibleRotationRate`` are skipped and counted.
///
/// Parameters are kept apart from the state; `process` never allocates.
public struct GyroscopeStrideTracker: Sendable {
  /// One stride's start: its time (s) and the RMS of the stride signal then (rad/s), which tells a
  /// limb's swing (a thigh walking: about 1 rad/s or more) from a trunk's sway.
  public struct Stride: Sendable, Equatable {
    /// When the stride began: the grid time, s on the input's clock, at which the stride signal
    /// rose above the hysteresis level.
    public var time: Double
    /// The running RMS of the stride signal at that moment, rad/s: about 1 or more for a thigh
    /// walking, far less for a trunk's sway.
    public var rotationRateRMS: Double
  }

  public let parameters: Parameters
  private let gridPeriod: Double
  private let covarianceFactor: Double
  private let longestInputGap: Double
  private let implausibleRotationRate: Double
  private let freshBandPass: BandPass

  private var previousTime = -Double.infinity
  private var previousRate = SIMD3<Double>.zero
  private var nextGridTime = -Double.infinity
  private var started = false
  /// One band-pass per axis (three fields, not an array: a restart must not allocate).
  private var bandPassX: BandPass
  private var bandPassY: BandPass
  private var bandPassZ: BandPass
  /// Running covariance of the band-passed rates, (rad/s)²: upper triangle xx, yy, zz, xy, xz, yz.
  private var diagonal = SIMD3<Double>.zero
  private var offDiagonal = SIMD3<Double>.zero
  /// The principal axis (unit vector), carried from sample to sample so its sign stays put.
  private var axis = GyroscopeStrideTracker.initialAxis
  private var meanSquare = 0.0
  /// +1 after the signal rose above the upper threshold, −1 after it fell below the lower one.
  private var phase = 0

  /// Readings left out: not finite, beyond ``Parameters/implausibleRotationRate``, or not later
  /// than the previous one (but not earlier by more than ``Parameters/longestInputGap``).
  public private(set) var skippedSamples = 0

  public init(parameters: Parameters = .default) {
    self.parameters = parameters
    let rate = parameters.gridRate.isFinite ? min(max(parameters.gridRate, 10), 400) : 50
    gridPeriod = 1 / rate
    let band = parameters.strideBand
    let low = band.lowerBound.isFinite && band.lowerBound > 0 ? band.lowerBound : 0.35
    let high = band.upperBound.isFinite && band.upperBound > low ? band.upperBound : max(1.6, low)
    freshBandPass = BandPass(
      highPass: StepDetector.Biquad(highPassCutoff: low, sampleRate: rate),
      lowPass: StepDetector.Biquad(lowPassCutoff: high, sampleRate: rate))
    let timeConstant = parameters.timeConstant
    covarianceFactor =
      timeConstant.isFinite && timeConstant > 0 ? min(1, 1 / (timeConstant * rate)) : 1
    let gap = parameters.longestInputGap
    longestInputGap =
      gap.isNaN ? Parameters.default.longestInputGap : min(max(gap, 0), Self.longestInputGapLimit)
    let implausible = parameters.implausibleRotationRate
    implausibleRotationRate =
      implausible.isNaN
      ? Parameters.default.implausibleRotationRate
      : implausible > 0
        ? min(implausible, Self.largestImplausibleRotationRate)
        : Self.largestImplausibleRotationRate
    bandPassX = freshBandPass
    bandPassY = freshBandPass
    bandPassZ = freshBandPass
  }

  /// The most ``Parameters/longestInputGap`` can be, s (it bounds the interpolation across a gap).
  static let longestInputGapLimit = 10.0
  /// The most ``Parameters/implausibleRotationRate`` can be, rad/s: far above any phone's range
  /// (±35 rad/s) and far from overflowing the squares.
  static let largestImplausibleRotationRate = 1000.0

  /// Feeds one reading; returns the stride that begins at it, or `nil`.
  public mutating func process(time: Double, rotationRate: SIMD3<Double>) -> Stride? {
    guard time.isFinite, rotationRate.x.isFinite, rotationRate.y.isFinite,
      rotationRate.z.isFinite,
      (rotationRate * rotationRate).sum() <= implausibleRotationRate * implausibleRotationRate
    else {
      skippedSamples &+= 1
      return nil
    }
    if time <= previousTime {
      guard previousTime - time > longestInputGap else {
        skippedSamples &+= 1
        return nil
      }
      restart()
    } else if started, time - previousTime > longestInputGap {
      // Do not invent a rotation across a hole: start again after it.
      restart()
    }
    if !started {
      started = true
      bandPassX.settle(at: rotationRate.x)
      bandPassY.settle(at: rotationRate.y)
      bandPassZ.settle(at: rotationRate.z)
      nextGridTime = time
      previousTime = time
      previousRate = rotationRate
    }
    let startTime = previousTime
    let startRate = previousRate
    previousTime = time
    previousRate = rotationRate
    var stride: Stride?
    // At most longestInputGap / gridPeriod + 1 iterations (the gap is clamped to 10 s).
    while nextGridTime <= time {
      let span = time - startTime
      let fraction = span > 0 ? min(max((nextGridTime - startTime) / span, 0), 1) : 1
      let value = startRate + (rotationRate - startRate) * fraction
      if let found = processGridSample(value, at: nextGridTime) { stride = found }
      nextGridTime = GridTime.next(after: nextGridTime, period: gridPeriod, inputTime: time)
    }
    return stride
  }

  /// Forgets everything seen so far except the count of skipped readings.
  public mutating func reset() {
    previousTime = -.infinity
    previousRate = .zero
    nextGridTime = -.infinity
    started = false
    bandPassX = freshBandPass
    bandPassY = freshBandPass
    bandPassZ = freshBandPass
    diagonal = .zero
    offDiagonal = .zero
    axis = Self.initialAxis
    meanSquare = 0
    phase = 0
  }

  private mutating func restart() { reset() }

  private static let initialAxis = SIMD3<Double>(1, 1, 1) / 3.0.squareRoot()

  /// A second-order high-pass then a second-order low-pass: the stride band of one axis.
  private struct BandPass: Sendable {
    var highPass: StepDetector.Biquad
    var lowPass: StepDetector.Biquad

    /// Steady state for a constant rate `x` (the high-pass output is then 0).
    mutating func settle(at x: Double) {
      highPass.settle(at: x)
      lowPass.settle(at: 0)
    }

    mutating func process(_ x: Double) -> Double { lowPass.process(highPass.process(x)) }
  }

  private mutating func processGridSample(_ rate: SIMD3<Double>, at time: Double) -> Stride? {
    let x = SIMD3(
      bandPassX.process(rate.x), bandPassY.process(rate.y), bandPassZ.process(rate.z))
    let factor = covarianceFactor
    diagonal += (x * x - diagonal) * factor
    let cross = SIMD3(x.x * x.y, x.x * x.z, x.y * x.z)
    offDiagonal += (cross - offDiagonal) * factor
    // One power-iteration step: the axis follows the covariance's leading eigenvector.
    let turned = SIMD3(
      diagonal.x * axis.x + offDiagonal.x * axis.y + offDiagonal.y * axis.z,
      offDiagonal.x * axis.x + diagonal.y * axis.y + offDiagonal.z * axis.z,
      offDiagonal.y * axis.x + offDiagonal.z * axis.y + diagonal.z * axis.z)
    let length = (turned * turned).sum().squareRoot()
    if length > 1e-12, length.isFinite { axis = turned / length }
    let y = (x * axis).sum()
    meanSquare += (y * y - meanSquare) * factor
    let rms = meanSquare.squareRoot()
    let level = parameters.hysteresis * rms
    if phase <= 0, y > level {
      phase = 1
      return Stride(time: time, rotationRateRMS: rms)
    }
    if phase >= 0, y < -level { phase = -1 }
    return nil
  }
}

extension GyroscopeStrideTracker {
  /// Tuning of the stride tracker. Rates in rad/s, times in s, frequencies in Hz.
  public struct Parameters: Sendable, Equatable {
    /// Rate of the uniform grid the rotation rate is resampled onto, Hz.
    public var gridRate: Double = 50
    /// The stride band, Hz: 0.35 Hz (a stride of 2.9 s) to 1.6 Hz (0.6 s, running). The band-pass
    /// keeps the limb's swing and drops the impacts and turns.
    public var strideBand: ClosedRange<Double> = 0.35...1.6
    /// Time constant of the running covariance and RMS of the band-passed rate, s.
    public var timeConstant: Double = 4.0
    /// A stride begins where the stride signal rises above this multiple of its RMS after falling
    /// below minus it.
    public var hysteresis: Double = 0.25
    /// A gap in the input longer than this restarts the tracker, s (clamped to 0...10 s).
    public var longestInputGap: Double = 1.0
    /// A reading faster than this, rad/s, is corrupt and skipped (phone gyroscopes measure up to
    /// about 35 rad/s). At most 1000 rad/s; a zero, negative or infinite setting means that.
    public var implausibleRotationRate: Double = 100

    public init() {}
    public static let `default` = Parameters()
  }
}
