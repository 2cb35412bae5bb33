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
    /// The latest step put in the queue (peak time): added steps never go before it.
    var lastEnqueuedTime = -Double.infinity

    // The gyroscope's strides (StepDetector+Strides.swift).
    var strideTracker: GyroscopeStrideTracker
    /// Strides not yet compared, oldest first.
    var strides: [StrideMark]
    var strideCount = 0
    /// How many of them (the first ones) have their ``StrideMark/stepBandRMS`` yet: set when the
    /// accelerometer's grid reaches the stride's time (the gyroscope may run ahead of it).
    var stridesWithStepBand = 0
    /// The latest steps found in |a| (peak times), a ring: what the strides are compared with.
    var foundSteps: [Double]
    var foundStepsNext = 0
    var foundStepsCount = 0
    /// Steps added from the gyroscope's strides.
    var gyroscopeSteps = 0
    /// Steps the strides showed missing and not yet returned: each goes between the next two
    /// found steps a stride apart (where the hidden leg stepped), so the step times keep a
    /// walking rhythm instead of arriving in a burst.
    var hiddenSteps = 0
    /// When the oldest of them was granted (grid time): past ``Parameters/strideCheckDelay``
    /// twice over without a stride-long interval to fill, they are returned as they are.
    var hiddenStepsSince = -Double.infinity

    /// A stride from ``GyroscopeStrideTracker`` kept for the comparison.
    struct StrideMark: Sendable {
      var time = 0.0
      var rotationRateRMS = 0.0
      /// RMS of |a|'s step band at the stride's time, m/s².
      var stepBandRMS = 0.0
    }

    init(_ coefficients: Coefficients, parameters: Parameters, boutLength: Int) {
      self.init(
        coefficients, history: Array(repeating: 0, count: coefficients.longestLag + 1),
        autocorrelation: Array(repeating: 0, count: coefficients.longestLag + 1),
        pendingTimes: Array(repeating: 0, count: boutLength),
        pendingHeights: Array(repeating: 0, count: boutLength),
        queue: Array(repeating: 0, count: boutLength + 2 + 4 * Coefficients.mostStridesPerCheck),
        strideTracker: GyroscopeStrideTracker(parameters: parameters.gyroscopeStrides),
        strides: Array(repeating: StrideMark(), count: Self.stridesCapacity),
        foundSteps: Array(repeating: 0, count: Self.foundStepsCapacity))
    }

    /// Steps found in |a| kept for the comparison: 8 strides of 2.5 s delay at 4 steps/s.
    static let foundStepsCapacity = 64
    /// Strides kept until compared: about a minute of walking, so that a reader that holds the
    /// accelerometer back for a while (to decide its units) loses none.
    static let stridesCapacity = 64

    /// A fresh state around buffers that are already sized (and zeroed where it matters).
    private init(
      _ coefficients: Coefficients, history: [Double], autocorrelation: [Double],
      pendingTimes: [Double], pendingHeights: [Double], queue: [Double],
      strideTracker: GyroscopeStrideTracker, strides: [StrideMark], foundSteps: [Double]
    ) {
      highPass = coefficients.highPass
      lowPass = coefficients.lowPass
      fastHighPass = coefficients.fastHighPass
      self.history = history
      self.autocorrelation = autocorrelation
      self.pendingTimes = pendingTimes
      self.pendingHeights = pendingHeights
      self.queue = queue
      self.strideTracker = strideTracker
      self.strides = strides
      self.foundSteps = foundSteps
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
      var strideTracker = self.strideTracker
      let strides = self.strides
      let foundSteps = self.foundSteps
      strideTracker.reset()
      self.history = []
      self.autocorrelation = []
      for index in history.indices { history[index] = 0 }
      for index in autocorrelation.indices { autocorrelation[index] = 0 }
      let skipped = skippedSamples
      let bridged = bridgedSteps
      let start = queueStart
      let count = queueCount
      let added = gyroscopeSteps
      let hidden = hiddenSteps
      self = State(
        coefficients, history: history, autocorrelation: autocorrelation,
        pendingTimes: pendingTimes, pendingHeights: pendingHeights, queue: queue,
        strideTracker: strideTracker, strides: strides, foundSteps: foundSteps)
      skippedSamples = skipped
      bridgedSteps = bridged
      queueStart = start
      queueCount = count
      gyroscopeSteps = added
      // The hidden steps of the old timeline are returned first thing on the new one.
      hiddenSteps = hidden
      // lastEnqueuedTime starts again: the new timeline's steps are earlier than the old one's.
    }
  }
}
