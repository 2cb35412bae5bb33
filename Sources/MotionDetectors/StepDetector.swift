// SPDX-License-Identifier: Apache-2.0

/// Detects walking and running steps in a stream of accelerometer samples, causally.
///
/// CONTRACT (shared by the pedometer API, the daemon and `motionctl steps`; keep the signatures):
/// - `init(parameters:)`, `process(time:acceleration:) -> Double?`, `reset()`.
/// - Input: `time` in seconds, increasing (repeated or slightly earlier times are skipped; a time
///   earlier than the previous sample's by more than ``Parameters/longestInputGap`` starts a new
///   timeline, see below); `acceleration` in g, gravity included, any device orientation (the
///   detector works on the magnitude, so Apple's sign and specific force give the same result).
/// - Output: the time (s) of one step confirmed by this sample, or `nil`. Inside a bout a step is
///   confirmed about 0.55 step periods after it (0.3 s at 1.8 steps/s); the first steps of a new
///   bout wait for its confirmation (three regular steps: the first step is confirmed about 2.6
///   step periods after it, 1.5 s at 1.8 steps/s, about 2 s at 1.3 steps/s; an irregular but
///   strong bout such as stairs waits for four, one period more) and are then released one per
///   sample. ``takeQueuedStep()`` drains what is left at the end of a stream. Within a timeline
///   the returned times never go back.
/// - Optional gyroscope input, ``process(time:rotationRate:)``: the strides of a limb that carries
///   the phone add the steps |a| missed (stairs with the phone in a trouser pocket); such a step is
///   returned a few seconds after it happened (``gyroscopeSteps`` counts them).
/// - A new timeline: when the clock restarts lower, or after a single sample stamped far in the
///   future, every later sample would be "earlier" than the latest one and skipped for good. So a
///   sample earlier by more than ``Parameters/longestInputGap`` restarts the stream as `reset()`
///   would (filters, grid, periodicity, bout), but keeps the steps confirmed and not yet returned
///   and the counters (``skippedSamples``, ``bridgedSteps``). One bogus future sample costs the bout
///   it interrupts and the new bout's confirmation: a step or two.
///
/// How it works (all on a uniform grid, ``Parameters/gridRate``, whatever the sensor rate):
/// 1. |a| is resampled by linear interpolation and band-passed (0.6–3.5 Hz, causal Butterworth).
///    A gap in the input longer than ``Parameters/longestInputGap`` ends the bout; inside a bout a
///    shorter one that hid a heel strike is bridged by the rhythm (``Parameters/shortestBridgedGap``).
/// 2. A running autocorrelation of the filtered signal gives the step period: the shortest lag
///    close to the best one is the period of the gait pattern; if the signal correlates at half
///    that lag the pattern was a stride (left + right), else one step. This makes the detector
///    indifferent to placements that show one strong peak per stride (back pocket) and to ones that
///    show two peaks per step. A halving that would give a running cadence (over 2.4 steps/s)
///    also needs running's evidence (alike steps or running's strength); without it the lag is
///    one step whose impact has two peaks (stairs in a pocket, a sensor on the lower back).
/// 3. A step is the highest peak within a cadence-dependent minimum interval, above a threshold
///    relative to the running RMS (lower where the rhythm expects the next step).
/// 4. Walking gate: a bout is confirmed by ``Parameters/stepsToConfirmBout`` peaks at regular
///    intervals while the signal is periodic (or by ``Parameters/stepsToConfirmIrregularBout``
///    while it is less so but strong: stairs) and not dominated by motion faster than steps
///    (energy above 6 Hz); its steps are then counted retroactively. An irregular interval ends
///    the bout.
///    Shaking at 4 Hz or faster, tapping and vehicle vibration fail this gate; shaking the phone
///    up and down at 3 Hz looks like running to any |a|-based counter and is counted.
///
/// Parameters, derived coefficients and state are kept apart; buffers are allocated in `init`, and
/// `process` never allocates.
public struct StepDetector: Sendable {
  public let parameters: Parameters
  let coefficients: Coefficients
  var state: State

  /// Standard gravity, m/s² per g.
  static let standardGravity = 9.80665
  /// Most pending peaks kept before a bout is confirmed (older ones are dropped).
  static let pendingCapacity = 16

  public init(parameters: Parameters = .default) {
    self.parameters = parameters
    coefficients = Coefficients(parameters)
    state = State(coefficients, parameters: parameters, boutLength: Self.pendingCapacity)
  }

  /// The current estimate of the step period, s (from the autocorrelation).
  public var stepPeriod: Double { state.stepPeriod }

  /// Whether a walking bout is under way (confirmed and not ended by a gap or an irregular step).
  public var isWalking: Bool { state.inBout }

  /// The time (as ``process(time:acceleration:)`` returns it) of the earliest peak the detector
  /// still holds that may yet become a step, or `nil` when it holds none: the peaks of a bout not
  /// confirmed yet, while a next peak could still continue them (after that they can only be
  /// dropped), and a peak still waiting out the minimum interval; while steps of a hidden leg
  /// granted by the gyroscope's strides wait for a time of their own (see
  /// ``process(time:rotationRate:)``), or a stretch of strides that may grant some waits to be
  /// compared, the earliest time the next of them may get: the minimum step interval after the
  /// last step queued; and the oldest step decided but not returned yet
  /// (steps are returned one per sample, and a bout's first ones or released hidden steps come
  /// several at once).
  ///
  /// Why: a new bout's first steps are returned 1.5–2.6 step periods after they happened, so when
  /// the detector drops out of a bout in the middle of a walk and confirms the next one, the time
  /// since the last *returned* step can exceed a pause delay although the steps' own times never
  /// leave such a gap; and hidden steps still waiting when a walk ends (pocket stairs, then a
  /// stop) are dated after its last found step, up to several seconds after it. A caller that
  /// judges pauses can wait while this is earlier than its pause would be. Before 2026-12-02 the
  /// queued steps and the hidden ones were left out: a pause judged between two samples that
  /// returned a bout's first steps, or after a pocket walk's end, was followed by steps dated
  /// before it.
  public var earliestUndecidedPeak: Double? {
    var earliest = earliestUndecidedFoundPeak
    if state.queueCount > 0 {
      let queued = state.queue[state.queueStart]
      earliest = min(earliest ?? queued, queued)
    }
    if state.hiddenSteps > 0 || awaitsStrideComparison, state.lastEnqueuedTime.isFinite {
      let nextHidden = state.lastEnqueuedTime + hiddenStepSpacing
      earliest = min(earliest ?? nextHidden, nextHidden)
    }
    return earliest.map { $0 - parameters.reportedTimeOffset }
  }

  /// Whether a stretch of strides that began before the last step queued waits to be compared
  /// with the steps found in it (and may grant hidden steps, dated after that step).
  var awaitsStrideComparison: Bool {
    state.strideCount > coefficients.stridesPerCheck
      && state.strides[0].time + parameters.reportedTimeOffset <= state.lastEnqueuedTime
  }

  /// The latest time at which a peak, finalized at the latest the minimum interval after it, is
  /// at a regular interval from the peak at `time` (and so may continue its walk), s.
  func latestContinuation(after time: Double) -> Double {
    time + parameters.regularInterval.upperBound * state.stepPeriod + minimumPeakInterval
  }

  /// The earliest peak found in |a| that may yet become a step (see ``earliestUndecidedPeak``),
  /// in the detector's own (peak) time, or `nil`.
  var earliestUndecidedFoundPeak: Double? {
    var earliest = state.candidateTime
    if !state.inBout, state.pendingCount > 0 {
      // The next peak, finalized at the latest the minimum interval after it, continues the
      // pending ones only at a regular interval from the last of them (see finalizePeak).
      let last = state.pendingTimes[state.pendingCount - 1]
      if state.previousTime <= latestContinuation(after: last) {
        earliest = state.pendingTimes[0]
      }
    }
    return earliest
  }

  /// Steps counted so far inside short gaps in the input (``Parameters/shortestBridgedGap``)
  /// from the bout's rhythm rather than from a detected peak; they are also in the output.
  public var bridgedSteps: Int { state.bridgedSteps }

  /// Steps added so far from the gyroscope's strides (``process(time:rotationRate:)``) where |a|
  /// missed them; they are also in the output.
  public var gyroscopeSteps: Int { state.gyroscopeSteps }

  /// Samples left out so far: a non-finite time or value, an acceleration beyond
  /// ``Parameters/implausibleAcceleration``, or a time not after the previous sample's (but not
  /// earlier by more than ``Parameters/longestInputGap``: such a sample starts a new timeline).
  public var skippedSamples: Int { state.skippedSamples }

  /// Feeds one sample; returns the time of a step this sample confirms, or `nil`.
  public mutating func process(time: Double, acceleration: SIMD3<Double>) -> Double? {
    let magnitude = (acceleration * acceleration).sum().squareRoot() * Self.standardGravity
    if magnitude.isFinite, magnitude <= coefficients.implausibleMagnitude, time.isFinite {
      if time > state.previousTime {
        ingest(time: time, magnitude: magnitude)
      } else if state.previousTime - time > coefficients.longestInputGap {
        // Too far back to be jitter: the clock restarted, or the previous sample's time was
        // bogus. Skipping would lock the stream out until the clock caught up (perhaps never).
        state.restartTimeline(coefficients)
        ingest(time: time, magnitude: magnitude)
      } else {
        state.skippedSamples &+= 1
      }
    } else {
      state.skippedSamples &+= 1
    }
    return dequeueStep()
  }

  /// The next confirmed step not returned yet, or `nil`. `process` returns one per call; call this
  /// at the end of a recording to collect the rest.
  public mutating func takeQueuedStep() -> Double? {
    // The end of a stream: hidden steps still waiting for an interval are returned too.
    if state.queueCount == 0, state.hiddenSteps > 0 {
      releaseHiddenSteps(before: state.previousTime)
    }
    return dequeueStep()
  }

  private mutating func dequeueStep() -> Double? {
    guard state.queueCount > 0 else { return nil }
    let time = state.queue[state.queueStart]
    state.queueStart = (state.queueStart + 1) % state.queue.count
    state.queueCount -= 1
    return time - parameters.reportedTimeOffset
  }

  /// Forgets everything seen so far.
  public mutating func reset() {
    state = State(coefficients, parameters: parameters, boutLength: Self.pendingCapacity)
  }

  // MARK: - Resampling

  private mutating func ingest(time: Double, magnitude: Double) {
    if !state.started {
      state.started = true
      state.highPass.settle(at: magnitude)
      state.fastHighPass.settle(at: magnitude)
      state.lowPass.settle(at: 0)
      state.nextGridTime = time
    } else if time - state.previousTime > coefficients.longestInputGap {
      // A hole in the data: do not invent a signal across it. The strides and hidden steps of
      // the stretch before it are settled first, so that no step is dated inside it.
      if state.strideCount > 0 || state.hiddenSteps > 0 {
        settleStrides(beforeGapAfter: state.previousTime)
      }
      endBout()
      state.nextGridTime = time
    } else if time - state.previousTime >= parameters.shortestBridgedGap {
      // Short enough to interpolate across, long enough to hide a step's impact. Until the
      // longest lag has passed it, the autocorrelation compares real steps with the flat
      // interpolated stretch and can jump to a multiple of the period: inside a bout, keep the
      // period found before the gap meanwhile (outside one there is no rhythm to keep).
      state.gapStart = state.previousTime
      state.gapEnd = time
      if state.inBout {
        state.periodHeldUntil = time + Double(coefficients.longestLag) * coefficients.gridPeriod
      }
    }
    let previousTime = state.previousTime
    let previousMagnitude = state.previousMagnitude
    state.previousTime = time
    state.previousMagnitude = magnitude
    // At most longestInputGap × gridRate + 1 iterations: the gap check above bounds it, with the
    // gap clamped to 10 s in the coefficients (at most 4 001 at the fastest grid).
    while state.nextGridTime <= time {
      let span = time - previousTime
      let fraction = span > 0 && span.isFinite ? (state.nextGridTime - previousTime) / span : 1
      let value = previousMagnitude + (magnitude - previousMagnitude) * min(max(fraction, 0), 1)
      processGridSample(value, at: state.nextGridTime)
      state.nextGridTime = GridTime.next(
        after: state.nextGridTime, period: coefficients.gridPeriod, inputTime: time)
    }
  }

  // MARK: - Grid

  private mutating func processGridSample(_ magnitude: Double, at time: Double) {
    let y = state.lowPass.process(state.highPass.process(magnitude))
    state.energy += (y * y - state.energy) * coefficients.energyFactor
    if state.strideCount > 0 || state.hiddenSteps > 0 { compareStrides(at: time) }
    let fast = state.fastHighPass.process(magnitude)
    state.fastEnergy += (fast * fast - state.fastEnergy) * coefficients.energyFactor
    updateAutocorrelation(y)
    state.gridIndex &+= 1
    if state.gridIndex % coefficients.periodUpdateInterval == 0, time >= state.periodHeldUntil {
      estimatePeriod()
    }

    let minimumInterval = minimumPeakInterval
    if let candidate = state.candidateTime, time - candidate > minimumInterval {
      finalizePeak(at: candidate, height: state.candidateHeight)
    }

    state.x0 = state.x1
    state.x1 = state.x2
    state.x2 = y
    guard state.x1 > state.x0, state.x1 >= state.x2 else { return }
    considerPeak(
      at: time - coefficients.gridPeriod, height: state.x1, minimumInterval: minimumInterval)
  }

  private mutating func updateAutocorrelation(_ y: Double) {
    let count = state.history.count
    state.historyPosition = (state.historyPosition + 1) % count
    state.history[state.historyPosition] = y
    let factor = coefficients.periodicityFactor
    var index = state.historyPosition
    state.history.withUnsafeBufferPointer { history in
      state.autocorrelation.withUnsafeMutableBufferPointer { r in
        for lag in 0..<count {
          r[lag] += (y * history[index] - r[lag]) * factor
          index = index == 0 ? count - 1 : index - 1
        }
      }
    }
  }

  /// Step period and periodicity from the running autocorrelation (see the type's overview).
  private mutating func estimatePeriod() {
    let r = state.autocorrelation
    let r0 = r[0]
    guard r0 > 1e-9 else {
      state.periodicity = 0
      return
    }
    let shortest = coefficients.shortestLag
    let longest = coefficients.longestLag
    var best = -Double.infinity
    var bestLag = shortest
    for lag in shortest...longest where r[lag] > best {
      best = r[lag]
      bestLag = lag
    }
    guard best >= parameters.minimumPeriodicity * r0 else {
      state.periodicity = 0
      return
    }
    var lag = bestLag
    // The shortest lag counts as a peak when the correlation falls after it: a period shorter than
    // the search range (fast shaking) must show up as such, not as its next multiple.
    for candidate in shortest..<longest
    where (candidate == shortest || r[candidate] >= r[candidate - 1])
      && r[candidate] >= r[candidate + 1]
      && r[candidate] >= parameters.periodPeakFraction * best
    {
      lag = candidate
      break
    }
    let half = lag / 2
    var halfLag = -Double.infinity
    for index in max(1, half - 3)...min(half + 3, longest) { halfLag = max(halfLag, r[index]) }
    let halfLagCorrelation = halfLag / r0
    var isStride = halfLagCorrelation > parameters.strideHalfLagThreshold
    let runningRMS = parameters.minimumRunningRMS
    if isStride, Double(lag) * coefficients.gridPeriod / 2 < parameters.fastestWalkingStepPeriod,
      halfLag < parameters.fastStrideHalfLagFraction * r[lag],
      state.energy < runningRMS * runningRMS
    {
      // A running cadence without running's evidence: one step with a doubled impact.
      isStride = false
    }
    state.stepPeriod = Double(lag) * coefficients.gridPeriod / (isStride ? 2 : 1)
    state.periodicity = r[lag] / r0
  }

  // MARK: - Peaks and bouts

  /// The shortest interval between two peaks at the current step period, s: a peak is finalized
  /// once this has passed without a higher one.
  var minimumPeakInterval: Double {
    max(parameters.minimumStepInterval, parameters.relativeMinimumStepInterval * state.stepPeriod)
  }

  private mutating func considerPeak(at time: Double, height: Double, minimumInterval: Double) {
    let rms = state.energy.squareRoot()
    var threshold = max(parameters.minimumPeakHeight, parameters.relativePeakHeight * rms)
    let sinceLast = time - state.lastPeakTime
    let rhythm = parameters.rhythmWindow
    if state.inBout, sinceLast >= rhythm.lowerBound * state.stepPeriod,
      sinceLast <= rhythm.upperBound * state.stepPeriod
    {
      threshold = max(parameters.minimumRhythmPeakHeight, parameters.relativeRhythmPeakHeight * rms)
    }
    guard height > threshold else { return }
    if state.candidateTime == nil {
      if sinceLast >= minimumInterval {
        state.candidateTime = time
        state.candidateHeight = height
      }
    } else if height > state.candidateHeight {
      state.candidateTime = time
      state.candidateHeight = height
    }
  }

  private mutating func finalizePeak(at time: Double, height: Double) {
    state.candidateTime = nil
    let interval = time - state.lastPeakTime
    state.lastPeakTime = time
    // A gait's signal: not dominated by motion faster than steps, at a step period walking or
    // running can have.
    let isGaitLike =
      state.fastEnergy < parameters.maximumHighFrequencyRatio * state.energy
      && state.stepPeriod >= parameters.shortestStepPeriod
    let regular = isGaitLike && parameters.regularInterval.contains(interval / state.stepPeriod)
    if state.inBout && regular {
      enqueue(time)
      return
    }
    if state.inBout, isGaitLike, bridgeGap(from: time - interval, to: time) {
      enqueue(time)
      return
    }
    state.inBout = false
    if !regular { state.pendingCount = 0 }
    appendPending(time, height)
    let isPeriodic =
      state.pendingCount >= max(1, parameters.stepsToConfirmBout)
      && state.periodicity >= parameters.minimumBoutPeriodicity
    let isIrregularButLongerAndStrong =
      state.pendingCount >= max(1, parameters.stepsToConfirmIrregularBout)
      && state.periodicity >= parameters.minimumIrregularBoutPeriodicity
      && state.energy >= parameters.minimumIrregularBoutRMS * parameters.minimumIrregularBoutRMS
    if isPeriodic || isIrregularButLongerAndStrong || stridesConfirmPendingPeaks(at: time) {
      confirmBout()
    }
  }

  /// Counts the steps that an input gap near two peaks of a bout hid, when the interval
  /// between the peaks (irregular, on a gait-like signal) is a whole number of step periods
  /// (2 or 3) and every step the rhythm puts inside it falls in the gap or within half a period
  /// of it. Returns whether it did; a peak-free stretch with data in it is not bridged (the
  /// walker paused or turned).
  private mutating func bridgeGap(from previousPeak: Double, to peak: Double) -> Bool {
    let period = state.stepPeriod
    // The gap lies between the two peaks, or overlaps one: a peak is found a little after its
    // impact, on data that may already be interpolated across the gap.
    guard state.gapEnd > previousPeak, state.gapStart < peak else { return false }
    // At most 8 periods whatever the parameter says: the queue holds 18 steps.
    let longest = min(max(parameters.longestBridgedInterval, 1), 8)
    let periods = (peak - previousPeak) / period
    guard periods.isFinite, periods >= 1.5, periods < Double(longest) + 0.5 else { return false }
    let steps = periods.rounded()
    guard abs(periods - steps) <= parameters.bridgedIntervalTolerance else { return false }
    let count = Int(steps)  // 2...8: checked above.
    let spacing = (peak - previousPeak) / steps
    // The hidden steps go up in time: the first and the last bound them all.
    let margin = 0.5 * period
    guard previousPeak + spacing >= state.gapStart - margin,
      peak - spacing <= state.gapEnd + margin
    else { return false }
    for index in 1..<count { enqueue(previousPeak + spacing * Double(index)) }
    state.bridgedSteps &+= count - 1
    // The gap is used: a later interval cannot claim it again.
    state.gapStart = -Double.infinity
    state.gapEnd = -Double.infinity
    return true
  }

  private mutating func appendPending(_ time: Double, _ height: Double) {
    if state.pendingCount == Self.pendingCapacity {
      for index in 1..<Self.pendingCapacity {
        state.pendingTimes[index - 1] = state.pendingTimes[index]
        state.pendingHeights[index - 1] = state.pendingHeights[index]
      }
      state.pendingCount -= 1
    }
    state.pendingTimes[state.pendingCount] = time
    state.pendingHeights[state.pendingCount] = height
    state.pendingCount += 1
  }

  /// Counts the pending peaks as steps, except leading ones much lower than the bout's median.
  private mutating func confirmBout() {
    state.inBout = true
    let count = state.pendingCount
    let median = Self.median(state.pendingHeights, count: count)
    var first = 0
    while first < count - 1, state.pendingHeights[first] < parameters.leadingPeakFraction * median {
      first += 1
    }
    for index in first..<count { enqueue(state.pendingTimes[index]) }
    state.pendingCount = 0
  }

  private mutating func endBout() {
    state.inBout = false
    state.pendingCount = 0
    state.candidateTime = nil
  }

  /// Queues a step found in |a| (a peak, or a step bridged across a gap), after the hidden step
  /// the gyroscope's strides put before it, if any.
  private mutating func enqueue(_ time: Double) {
    noteFoundStep(time)
    placeHiddenStep(before: time)
    enqueueStep(at: time)
  }

  /// Queues a step to be returned; the queue's times never go back.
  mutating func enqueueStep(at time: Double) {
    let time = max(time, state.lastEnqueuedTime)
    state.lastEnqueuedTime = time
    let capacity = state.queue.count
    // Cannot happen at sane rates; drop the oldest rather than trap.
    if state.queueCount == capacity {
      state.queueStart = (state.queueStart + 1) % capacity
      state.queueCount -= 1
    }
    state.queue[(state.queueStart + state.queueCount) % capacity] = time
    state.queueCount += 1
  }

  /// The median of the first `count` values (count ≤ 16: a quadratic selection, no allocation).
  static func median(_ values: [Double], count: Int) -> Double {
    guard count > 0 else { return 0 }
    var lower = 0.0
    var upper = 0.0
    for i in 0..<count {
      var below = 0
      var equal = 0
      for j in 0..<count {
        if values[j] < values[i] { below += 1 } else if values[j] == values[i] { equal += 1 }
      }
      // values[i] occupies sorted positions below ..< below + equal.
      if below <= (count - 1) / 2, (count - 1) / 2 < below + equal { lower = values[i] }
      if below <= count / 2, count / 2 < below + equal { upper = values[i] }
    }
    return (lower + upper) / 2
  }
}
