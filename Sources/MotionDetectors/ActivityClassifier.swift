// SPDX-License-Identifier: Apache-2.0

/// Classifies motion activity (stationary, walking, running, cycling, automotive, unknown) from
/// accelerometer samples, causally, with hysteresis.
///
/// CONTRACT (shared by the activity API, the daemon and `motionctl activity`; keep the signatures):
/// - `init(parameters:)`, `process(time:acceleration:) -> ActivityEstimate?`, `current`, `reset()`.
/// - Input: `time` in seconds, non-decreasing; `acceleration` in g, gravity included (Apple's sign
///   at the API boundary).
/// - Output: a new estimate when the reported activity changes, else `nil`; `current` is the latest.
///
/// The implementation here is a placeholder (scaffolding): the activity work replaces it.
public struct ActivityClassifier: Sendable {
  public struct Parameters: Sendable, Equatable {
    /// Window length in s.
    public var window: Double = 2.56
    public init() {}
    public static let `default` = Parameters()
  }

  public let parameters: Parameters
  public private(set) var current = ActivityEstimate(unknown: true)
  private var windowStart: Double?
  private var count = 0.0
  private var sum = 0.0
  private var sumOfSquares = 0.0

  public init(parameters: Parameters = .default) {
    self.parameters = parameters
  }

  /// Feeds one sample; returns the new estimate when the activity changed.
  public mutating func process(time: Double, acceleration: SIMD3<Double>) -> ActivityEstimate? {
    let magnitude = (acceleration * acceleration).sum().squareRoot()
    guard magnitude.isFinite, time.isFinite else { return nil }
    if windowStart == nil { windowStart = time }
    count += 1
    sum += magnitude
    sumOfSquares += magnitude * magnitude
    guard let start = windowStart, time - start >= parameters.window else { return nil }
    let mean = sum / count
    let deviation = max(0, sumOfSquares / count - mean * mean).squareRoot()
    windowStart = time
    count = 0
    sum = 0
    sumOfSquares = 0
    var next = ActivityEstimate(confidence: .medium, startTime: time)
    if deviation < 0.05 {
      next.stationary = true
    } else if deviation < 0.8 {
      next.walking = true
    } else {
      next.running = true
    }
    guard !next.sameActivity(as: current) else { return nil }
    current = next
    return next
  }

  /// Forgets everything seen so far.
  public mutating func reset() {
    self = ActivityClassifier(parameters: parameters)
  }
}
