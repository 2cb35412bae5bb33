// SPDX-License-Identifier: Apache-2.0

/// Detects walking and running steps in a stream of accelerometer samples, causally.
///
/// CONTRACT (shared by the pedometer API, the daemon and `motionctl steps`; keep the signatures):
/// - `init(parameters:)`, `process(time:acceleration:) -> Double?`, `reset()`.
/// - Input: `time` in seconds, non-decreasing; `acceleration` in g, gravity included, any device
///   orientation (Apple's sign at the API boundary: face up at rest reads (0, 0, −1); the detector
///   works on magnitudes, so specific force in g works as well).
/// - Output: the time (s) of one step confirmed by this sample, or `nil`. A step is confirmed at
///   most 2 s after it happened.
///
/// The implementation here is a placeholder (scaffolding): the step-counter work replaces it.
public struct StepDetector: Sendable {
  /// Tuning of the detector.
  public struct Parameters: Sendable, Equatable {
    /// Smallest peak of the smoothed magnitude above its running mean, in g.
    public var minimumPeakHeight: Double = 0.06
    /// Shortest time between two steps, in s (4 steps/s at most).
    public var minimumStepInterval: Double = 0.25
    public init() {}
    public static let `default` = Parameters()
  }

  public let parameters: Parameters
  private var smoothed = 1.0
  private var mean = 1.0
  private var previous = 1.0
  private var rising = false
  private var lastStepTime = -Double.infinity
  private var lastTime: Double?

  public init(parameters: Parameters = .default) {
    self.parameters = parameters
  }

  /// Feeds one sample; returns the time of a step this sample confirms, or `nil`.
  public mutating func process(time: Double, acceleration: SIMD3<Double>) -> Double? {
    let magnitude = (acceleration * acceleration).sum().squareRoot()
    guard magnitude.isFinite, time.isFinite else { return nil }
    let period = lastTime.map { max(0, min(0.1, time - $0)) } ?? 0.01
    lastTime = time
    smoothed += (magnitude - smoothed) * min(1, period / 0.05)
    mean += (smoothed - mean) * min(1, period / 1.0)
    defer { previous = smoothed }
    if smoothed > previous {
      rising = true
      return nil
    }
    guard rising else { return nil }
    rising = false
    guard previous - mean > parameters.minimumPeakHeight,
      time - lastStepTime >= parameters.minimumStepInterval
    else { return nil }
    lastStepTime = time
    return time
  }

  /// Forgets everything seen so far.
  public mutating func reset() {
    self = StepDetector(parameters: parameters)
  }
}
