// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Turns accelerometer samples at any rate into activity feature vectors, causally.
///
/// Pipeline, per sample: two cascaded one-pole low-pass filters (cut-off ``cutoffFrequency``, their
/// coefficient recomputed from each sample's time step, so the same filter applies at 15 Hz or
/// 200 Hz), then linear interpolation onto a fixed ``gridRate`` grid kept in a ring buffer of
/// ``windowLength`` grid samples. Every ``hopLength`` grid samples, once the buffer is full, a vector
/// of ``featureCount`` features is computed from the window (5 s):
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
  /// Duration of one window (s).
  public static var windowDuration: Double { Double(windowLength) / gridRate }

  /// Frequencies of the DFT bins (Hz).
  static let frequencies: [Double] = (1...40).map { Double($0) * 0.2 }
  /// Bin ranges [lower, upper) of the six bands.
  static let bands: [(Int, Int)] = [(0, 2), (2, 5), (5, 9), (9, 15), (15, 24), (24, 40)]
  /// Hann-windowed cosine and sine tables, `[bin * windowLength + sample]`.
  static let tables: (cosine: [Double], sine: [Double]) = {
    let n = windowLength
    var cosine = [Double](repeating: 0, count: frequencies.count * n)
    var sine = cosine
    for (k, f) in frequencies.enumerated() {
      for i in 0..<n {
        let hann = 0.5 - 0.5 * Double.cos(2 * Double.pi * (Double(i) + 0.5) / Double(n))
        let phase = 2 * Double.pi * f * Double(i) / gridRate
        cosine[k * n + i] = Double.cos(phase) * hann
        sine[k * n + i] = Double.sin(phase) * hann
      }
    }
    return (cosine, sine)
  }()

  // Filter and resampler state.
  private var stage1 = SIMD3<Double>()
  private var stage2 = SIMD3<Double>()
  private var previousTime = 0.0
  private var previousValue = SIMD3<Double>()
  private var nextGridTime = 0.0
  private var started = false

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
  /// The latest feature vector (valid once ``process(time:acceleration:)`` has returned true).
  public private(set) var features: [Double]

  public init() {
    let n = Self.windowLength
    ring = .init(repeating: .zero, count: n)
    window = .init(repeating: .zero, count: n)
    magnitude = .init(repeating: 0, count: n)
    vertical = .init(repeating: 0, count: n)
    power = .init(repeating: 0, count: Self.frequencies.count)
    features = .init(repeating: 0, count: Self.featureCount)
    _ = Self.tables  // build the shared tables now, not on the first window
  }

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
    guard time.isFinite, acceleration.x.isFinite, acceleration.y.isFinite, acceleration.z.isFinite else {
      reset()
      return false
    }
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
      let alpha = 1 - Double.exp(-2 * Double.pi * Self.cutoffFrequency * step)
      stage1 += alpha * (acceleration - stage1)
      stage2 += alpha * (stage1 - stage2)
    }
    var ready = false
    while nextGridTime <= time {
      let fraction = step > 0 ? (nextGridTime - previousTime) / step : 0
      push(previousValue + fraction * (stage2 - previousValue))
      nextGridTime += 1 / Self.gridRate
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
    features[12] = logarithm10(verticalVariance.squareRoot() + 1e-4)
    features[13] = logarithm10(max(totalVariance - verticalVariance, 0).squareRoot() + 1e-4)
    features[14] = logarithm10(1 - meanNorm / max(meanMagnitude, 1e-12) + 1e-5)
    _ = spectrumShares(of: vertical, into: 15)
  }

  /// Fills `power` with the signal's DFT power, writes the six band shares at `offset`, and returns
  /// the bin of the largest power in 0.6–5 Hz.
  private mutating func spectrumShares(of signal: [Double], into offset: Int) -> Int {
    let n = Self.windowLength
    let tables = Self.tables
    var total = 0.0
    // The DFT is most of the per-window cost: unchecked buffers let it vectorise.
    tables.cosine.withUnsafeBufferPointer { cosine in
      tables.sine.withUnsafeBufferPointer { sine in
        signal.withUnsafeBufferPointer { x in
          power.withUnsafeMutableBufferPointer { power in
            for k in 0..<power.count {
              var re = 0.0
              var im = 0.0
              let base = k * n
              for i in 0..<n {
                re += cosine[base + i] * x[i]
                im += sine[base + i] * x[i]
              }
              power[k] = re * re + im * im
              total += power[k]
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
@inline(__always) private func logarithm10(_ x: Double) -> Double { Double.log(x) * 0.4342944819032518 }
