// SPDX-License-Identifier: Apache-2.0

extension StepDetector {
  /// Everything the detector remembers. Buffers are sized once, from the coefficients, so
  /// processing a sample never allocates.
  struct State: Sendable {
    // Input and resampling.
    var previousTime = -Double.infinity
    /// Samples left out: non-finite, implausibly large, or not later than the previous one.
    var skippedSamples = 0
    var previousMagnitude = 0.0
    var nextGridTime = -Double.infinity
    var started = false
    /// The latest gap in the input of at least ``Parameters/shortestBridgedGap`` (and at most
    /// ``Parameters/longestInputGap``): the times of the samples on either side of it.
    var gapStart = -Double.infinity
    var gapEnd = -Double.infinity
    /// Until this grid time the step period is held: the autocorrelation's lags still span the
    /// latest short gap, whose interpolated stretch would move the estimate.
    var periodHeldUntil = -Double.infinity
    /// Steps counted inside input gaps (the rhythm's, not a detected peak's).
    var bridgedSteps = 0

    // Signal chain on the grid.
    var highPass: Biquad
    var lowPass: Biquad
    var fastHighPass: Biquad
    var energy = 1.0
    /// Running mean square of |a| above the step band, (m/s²)².
    var fastEnergy = 0.0
    /// The last three filtered values (oldest first) and the grid time of the middle one.
    var x0 = 0.0, x1 = 0.0, x2 = 0.0
    var gridIndex = 0

    // Periodicity: ring buffer of filtered values and the running autocorrelation per lag
    // (0...longest).
    var history: [Double]
    var historyPosition = 0
    var autocorrelation: [Double]
    var stepPeriod = 0.55
    var periodicity = 0.0

    // Peaks and bouts.
    var candidateTime: Double?
    var candidateHeight = 0.0
    var lastPeakTime = -Double.infinity
    var inBout = false
    var pendingTimes: [Double]
    var pendingHeights: [Double]
    var pendingCount = 0
    /// Confirmed steps not yet returned (a bout confirms several at once), first-in first-out.
    var queue: [Double]
    var queueStart = 0
    var queueCount = 0

    init(_ coefficients: Coefficients, boutLength: Int) {
      self.init(
        coefficients, history: Array(repeating: 0, count: coefficients.longestLag + 1),
        autocorrelation: Array(repeating: 0, count: coefficients.longestLag + 1),
        pendingTimes: Array(repeating: 0, count: boutLength),
        pendingHeights: Array(repeating: 0, count: boutLength),
        queue: Array(repeating: 0, count: boutLength + 2))
    }

    /// A fresh state around buffers that are already sized (and zeroed where it matters).
    private init(
      _ coefficients: Coefficients, history: [Double], autocorrelation: [Double],
      pendingTimes: [Double], pendingHeights: [Double], queue: [Double]
    ) {
      highPass = coefficients.highPass
      lowPass = coefficients.lowPass
      fastHighPass = coefficients.fastHighPass
      self.history = history
      self.autocorrelation = autocorrelation
      self.pendingTimes = pendingTimes
      self.pendingHeights = pendingHeights
      self.queue = queue
    }

    /// Starts a new timeline (see ``StepDetector``): a fresh state, except the steps confirmed and
    /// not yet returned and the counters, which belong to the whole stream. The buffers are reused
    /// (zeroed in place), so that this stays free of allocation like the rest of `process`.
    mutating func restartTimeline(_ coefficients: Coefficients) {
      // Move the buffers out so they are uniquely referenced: zeroing them then copies nothing.
      var history = self.history
      var autocorrelation = self.autocorrelation
      let pendingTimes = self.pendingTimes
      let pendingHeights = self.pendingHeights
      let queue = self.queue
      self.history = []
      self.autocorrelation = []
      for index in history.indices { history[index] = 0 }
      for index in autocorrelation.indices { autocorrelation[index] = 0 }
      let skipped = skippedSamples
      let bridged = bridgedSteps
      let start = queueStart
      let count = queueCount
      self = State(
        coefficients, history: history, autocorrelation: autocorrelation,
        pendingTimes: pendingTimes, pendingHeights: pendingHeights, queue: queue)
      skippedSamples = skipped
      bridgedSteps = bridged
      queueStart = start
      queueCount = count
    }
  }
}
