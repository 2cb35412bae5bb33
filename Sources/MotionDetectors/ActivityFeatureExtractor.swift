// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Turns accelerometer samples at any rate into activity feature vectors, causally.
///
/// Pipeline, per sample: two cascaded one-pole low-pass filters (cut-off ``cutoffFrequency``, their
/// coefficient recomputed from each sample's time step, so the same filter applies at 15 Hz or 200
/// Hz), then linear interpolation onto a fixed ``gridRate`` grid kept in a ring buffer of
/// ``windowLength`` grid samples. Every ``hopLength`` grid samples, once the buffer is full, a
/// vector of ``featureCount`` features is computed from the window (5 s):
///
/// 0. mean of |a| (g); 1. log10 std of |a|; 2. log10 mean absolute deviation of |a|;
/// 3. log10 mean |d|a|/dt| (g/s);
/// 4–9. share of |a|'s power (Hann-windowed DFT, 0.2–8 Hz in 0.2 Hz steps) in the bands
///      0.2–0.6, 0.6–1.2, 1.2–2, 2–3.2, 3.2–5, 5–8 Hz;
/// 10. dominant frequency of |a| in 0.6–5 Hz (Hz); 11. share of power within ±0.2 Hz of it;
/// 12. log10 std of the component along the window's mean (gravity) direction; 13. log10 std of the
///     horizontal part; 14. log10 (1 − |mean a| / mean |a|), how much the orientation changes;
/// 15–20. the band shares of 4–9 for the gravity-direction component.
///
/// Nothing allocates after `init`: the ring buffer and the scratch arrays have fixed sizes.
/// A time step that goes backwards, a gap longer than ``maximumGap`` or a non-finite value restarts
/// the window (the gap itself is not interpolated over).
public struct ActivityFeatureExtractor: Sendable {
  /// Features per vector.
  public static let featureCount = 21
  /// Rate of the internal grid (Hz).
  public static let gridRate = 20.0
  /// Grid samples per window (5 s).
  public static let windowLength = 100
  /// Grid samples between feature vectors (1 s).
  public static let hopLength = 20
  /// Low-pass cut-off before resampling (Hz).
  public static let cutoffFrequency = 6.0
  /// Longest time step bridged by interpolation (s).
  public static let maximumGap = 1.0
  /// Index of feature 4, the share of |a|'s power in 0.2–0.6 Hz.
  public static let slowestBandShareFeature = 4
  /// Index of feature 12, the log10 standard deviation along gravity (g).
  public static let verticalDeviationFeature = 12
  /// Index of feature 13, the log10 standard deviation of the horizontal part (g).
  public static let horizontalDeviationFeature = 13
  /// Index of feature 14, log10 (1 − |mean a| / mean |a|): how much the orientation changes.
  public static let orientationChangeFeature = 14
  /// Duration of one window (s).
  public static var windowDuration: Double { Double(windowLength) / gridRate }

  /// Frequencies of the DFT bins (Hz).
  static let frequencies: [Double] = (1...40).map { Double($0) * 0.2 }
  /// Bin ranges [lower, upper) of the six bands.
  static let bands: [(Int, Int)] = [(0, 2), (2, 5), (5, 9), (9, 15), (15, 24), (24, 40)]
  /// Bins per SIMD lane group of the spectrum.
  static let lanes = 4
  /// The Hann window, per grid sample of the window.
  static let hann: [Double] = (0..<windowLength).map {
    0.5 - 0.5 * Double.cos(2 * Double.pi * (Double($0) + 0.5) / Double(windowLength))
  }
  /// Goertzel coefficients 2 cos(2π f / gridRate) of each bin, in groups of ``lanes`` bins.
  static let goertzelCoefficients: [SIMD4<Double>] = stride(
    from: 0, to: frequencies.count, by: lanes
  ).map { first in
    var c = SIMD4<Double>()
    for lane in 0..<lanes {
      c[lane] = 2 * Double.cos(2 * Double.pi * frequencies[first + lane] / gridRate)
    }
    return c
  }

  // Filter and resampler state.
  private var stage1 = SIMD3<Double>()
  private var stage2 = SIMD3<Double>()
  private var previousTime = 0.0
  private var previousValue = SIMD3<Double>()
  private var nextGridTime = 0.0
  private var started = false
  /// The last time step and its filter coefficient (the exponential is recomputed only when the
  /// step changes, which at a steady rate is never).
  private var filterStep = -1.0
  private var filterAlpha = 0.0

  // Ring buffer of grid samples and window bookkeeping.
  private var ring: [SIMD3<Double>]
  private var head = 0
  private var filled = 0
  private var sinceLast = 0

  // Scratch (reused, never reallocated).
  private var window: [SIMD3<Double>]
  private var magnitude: [Double]
  private var vertical: [Double]
  private var power: [Double]
  /// The Hann-windowed signal of a spectrum.
  private var windowed: [Double]
  /// The latest feature vector (valid once ``process(time:acceleration:)`` has returned true).
  public private(set) var features: [Double]

  public init() {
    let n = Self.windowLength
    ring = .init(repeating: .zero, count: n)
    window = .init(repeating: .zero, count: n)
    magnitude = .init(repeating: 0, count: n)
    vertical = .init(repeating: 0, count: n)
    power = .init(repeating: 0, count: Self.frequencies.count)
    windowed = .init(repeating: 0, count: n)
    features = .init(repeating: 0, count: Self.featureCount)
    _ = Self.hann  // build the shared tables now, not on the first window
    _ = Self.goertzelCoefficients
  }

  /// Beyond this, g, an acceleration is a corrupt reading and is skipped.
  static let implausibleAcceleration = 64.0

  /// Forgets the signal (keeps the buffers).
  public mutating func reset() {
    started = false
    head = 0
    filled = 0
    sinceLast = 0
  }

  /// Feeds one sample (time in s, acceleration in g, any sign convention: only magnitudes and
  /// directions relative to the mean are used). Returns true when a new feature vector is ready in
  /// ``features``.
  public mutating func process(time: Double, acceleration: SIMD3<Double>) -> Bool {
    guard time.isFinite, acceleration.x.isFinite, acceleration.y.isFinite, acceleration.z.isFinite
    else {
      reset()
      return false
    }
    // A corrupt reading (phone accelerometers measure up to ±16 g, a few ±32 g) is left out as
    // if missing: through the filters, one 1e100 would fill the window with nonsense.
    let largest = Swift.max(
      Swift.abs(acceleration.x), Swift.abs(acceleration.y), Swift.abs(acceleration.z))
    guard largest <= Self.implausibleAcceleration else { return false }
    if !started || time < previousTime || time - previousTime > Self.maximumGap {
      reset()
      started = true
      stage1 = acceleration
      stage2 = acceleration
      previousTime = time
      previousValue = acceleration
      nextGridTime = time
    }
    let step = time - previousTime
    if step > 0 {
      if step != filterStep {
        filterStep = step
        filterAlpha = 1 - Double.exp(-2 * Double.pi * Self.cutoffFrequency * step)
      }
      let alpha = filterAlpha
      stage1 += alpha * (acceleration - stage1)
      stage2 += alpha * (stage1 - stage2)
    }
    var ready = false
    while nextGridTime <= time {
      let fraction = step > 0 ? (nextGridTime - previousTime) / step : 0
      push(previousValue + fraction * (stage2 - previousValue))
      nextGridTime = GridTime.next(after: nextGridTime, period: 1 / Self.gridRate, inputTime: time)
      if filled == Self.windowLength && sinceLast >= Self.hopLength {
        sinceLast = 0
        computeFeatures()
        ready = true
      }
    }
    previousTime = time
    previousValue = stage2
    return ready
  }

  private mutating func push(_ value: SIMD3<Double>) {
    ring[head] = value
    head = (head + 1) % Self.windowLength
    if filled < Self.windowLength { filled += 1 }
    sinceLast += 1
  }

  private mutating func computeFeatures() {
    let n = Self.windowLength
    let count = Double(n)
    var meanVector = SIMD3<Double>()
    var meanMagnitude = 0.0
    for i in 0..<n {
      let value = ring[(head + i) % n]
      window[i] = value
      meanVector += value
      let m = (value * value).sum().squareRoot()
      magnitude[i] = m
      meanMagnitude += m
    }
    meanVector /= count
    meanMagnitude /= count
    var variance = 0.0
    var absoluteDeviation = 0.0
    var jerk = 0.0
    var totalVariance = 0.0
    for i in 0..<n {
      let d = magnitude[i] - meanMagnitude
      variance += d * d
      absoluteDeviation += abs(d)
      // Known defect, kept because the shipped model depends on it: `magnitude[i - 1]` already
      // holds its deviation from the mean here, so this sums about |a| itself, not |d|a|/dt|
      // (the feature is close to log10(20 · mean |a|)). Fixing it alone, with the model
      // retrained, moved MotionSense walking recall from 99.3 % to 97.1 % (docs/MotionActivity.md).
      if i > 0 { jerk += abs(magnitude[i] - magnitude[i - 1]) }
      let centred = window[i] - meanVector
      totalVariance += (centred * centred).sum()
      magnitude[i] = d  // detrended, for the spectrum
    }
    variance /= count
    absoluteDeviation /= count
    jerk = jerk / (count - 1) * Self.gridRate
    totalVariance /= count
    let meanNorm = (meanVector * meanVector).sum().squareRoot()
    let direction = meanNorm > 1e-12 ? meanVector / meanNorm : SIMD3<Double>(0, 0, 1)
    var verticalMean = 0.0
    for i in 0..<n {
      vertical[i] = (window[i] * direction).sum()
      verticalMean += vertical[i]
    }
    verticalMean /= count
    var verticalVariance = 0.0
    for i in 0..<n {
      vertical[i] -= verticalMean
      verticalVariance += vertical[i] * vertical[i]
    }
    verticalVariance /= count

    features[0] = meanMagnitude
    features[1] = logarithm10(variance.squareRoot() + 1e-4)
    features[2] = logarithm10(absoluteDeviation + 1e-4)
    features[3] = logarithm10(jerk + 1e-4)
    let dominant = spectrumShares(of: magnitude, into: 4)
    features[10] = Self.frequencies[dominant]
    var peak = 0.0
    for k in max(dominant - 1, 0)...min(dominant + 1, power.count - 1) { peak += power[k] }
    features[11] = peak / (power.reduce(0, +) + 1e-12)
    features[Self.verticalDeviationFeature] = logarithm10(verticalVariance.squareRoot() + 1e-4)
    features[Self.horizontalDeviationFeature] = logarithm10(
      max(totalVariance - verticalVariance, 0).squareRoot() + 1e-4)
    features[Self.orientationChangeFeature] = logarithm10(
      1 - meanNorm / max(meanMagnitude, 1e-12) + 1e-5)
    _ = spectrumShares(of: vertical, into: 15)
  }

  /// Fills `power` with the signal's DFT power, writes the six band shares at `offset`, and returns
  /// the bin of the largest power in 0.6–5 Hz.
  private mutating func spectrumShares(of signal: [Double], into offset: Int) -> Int {
    let n = Self.windowLength
    var total = 0.0
    // The spectrum is most of the per-window cost. Goertzel's recurrence (one multiply and two adds
    // per bin and sample, against two multiplies and two adds for a DFT against sine tables),
    // four bins per vector operation, over unchecked buffers; the power of bin k is then
    // s1² + s2² − 2 cos(ω) s1 s2.
    let hann = Self.hann
    let coefficients = Self.goertzelCoefficients
    signal.withUnsafeBufferPointer { x in
      hann.withUnsafeBufferPointer { hann in
        windowed.withUnsafeMutableBufferPointer { windowed in
          for i in 0..<n { windowed[i] = x[i] * hann[i] }
          power.withUnsafeMutableBufferPointer { power in
            // Two groups per pass: each recurrence is a chain of dependent operations, so two
            // independent chains keep the arithmetic units busy.
            var g = 0
            while g < coefficients.count {
              let second = Swift.min(g + 1, coefficients.count - 1)
              let c = coefficients[g]
              let d = coefficients[second]
              var s1 = SIMD4<Double>()
              var s2 = SIMD4<Double>()
              var t1 = SIMD4<Double>()
              var t2 = SIMD4<Double>()
              for i in 0..<n {
                let s0 = c * s1 - s2 + windowed[i]
                let t0 = d * t1 - t2 + windowed[i]
                s2 = s1
                s1 = s0
                t2 = t1
                t1 = t0
              }
              let powers = (s1 * s1 + s2 * s2 - c * s1 * s2, t1 * t1 + t2 * t2 - d * t1 * t2)
              for lane in 0..<Self.lanes {
                power[g * Self.lanes + lane] = powers.0[lane]
                total += powers.0[lane]
                if second != g {
                  power[second * Self.lanes + lane] = powers.1[lane]
                  total += powers.1[lane]
                }
              }
              g += 2
            }
          }
        }
      }
    }
    total += 1e-12
    for (b, band) in Self.bands.enumerated() {
      var sum = 0.0
      for k in band.0..<band.1 { sum += power[k] }
      features[offset + b] = sum / total
    }
    var best = 2
    for k in 2...24 where power[k] > power[best] { best = k }
    return best
  }
}

/// Base-10 logarithm through MotionMath's elementary functions.
@inline(__always) private func logarithm10(_ x: Double) -> Double {
  Double.log(x) * 0.4342944819032518
}
