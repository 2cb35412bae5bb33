// SPDX-License-Identifier: Apache-2.0

extension StepDetector {
  /// Feeds one gyroscope reading (time in s on the accelerometer's clock, rotation rate in rad/s,
  /// any frame). Optional: without it the detector counts from |a| alone, as before.
  ///
  /// With it, the steps that |a| missed inside a walk are added from the strides of a limb that
  /// carries the phone (``GyroscopeStrideTracker``): every ``Parameters/stridesPerCheck`` strides
  /// are compared, ``Parameters/strideCheckDelay`` after they end, with the steps found in them.
  /// A walk has two steps per stride; when at least ``Parameters/leastMissingSteps`` are missing,
  /// they are added: each in the middle of the next stride-long interval between found steps
  /// (where the hidden leg steps); if none comes within twice the delay (or while no bout is
  /// under way, when none will come before a new bout's first steps), as many as fit at least
  /// ``Parameters/minimumStepInterval`` apart between the last step returned and the next that
  /// may come, and no further apart than the step period (the others wait for room); before a gap
  /// in the input that ends the bout, all of them. Only where
  /// - every stride lasts ``Parameters/strideDuration`` (or, in a run of like strides, as little
  ///   as ``Parameters/shortestQuickStride``) and swings like a limb
  ///   (``Parameters/leastStrideRotationRate``),
  /// - |a| shows stepping's impacts (``Parameters/leastStrideCheckRMS``), and
  /// - |a| found at least ``Parameters/leastFoundStepsPerStride`` steps per stride.
  ///
  /// This never removes a step. It matters on stairs with the phone in a trouser pocket, where one
  /// leg's step hardly shows in |a| (docs/Steps.md); walking and running already have two steps
  /// per stride and nothing is added. Added steps are returned by ``process(time:acceleration:)``
  /// like the others, a stride or so after the comparison (some seconds after the stretch they
  /// were missing from), and never before a step already returned. This call returns nothing
  /// itself.
  public mutating func process(time: Double, rotationRate: SIMD3<Double>) {
    guard let stride = state.strideTracker.process(time: time, rotationRate: rotationRate) else {
      return
    }
    if state.strideCount == state.strides.count {
      // The accelerometer lags far behind (or has stopped): forget the oldest stride.
      dropStrides(1)
    }
    state.strides[state.strideCount] = State.StrideMark(
      time: stride.time, rotationRateRMS: stride.rotationRateRMS)
    state.strideCount += 1
  }

  /// Gyroscope readings left out by the stride tracker (see ``GyroscopeStrideTracker``).
  public var skippedRotationRates: Int { state.strideTracker.skippedSamples }

  /// Remembers a step found in |a| (peak time) for the comparison with the strides.
  mutating func noteFoundStep(_ time: Double) {
    let capacity = state.foundSteps.count
    state.foundSteps[state.foundStepsNext] = time
    state.foundStepsNext = (state.foundStepsNext + 1) % capacity
    state.foundStepsCount = min(state.foundStepsCount + 1, capacity)
  }

  /// Compares the strides whose stretch ended at least the delay before `time` (a grid time of
  /// the accelerometer) with the steps found in them; see ``process(time:rotationRate:)``.
  mutating func compareStrides(at time: Double) {
    markStepBand(upTo: time)
    // The walk ended: no peak that may continue it, and too long since the last one for the next
    // to be a step of the same walk (the bout itself lasts until a gap or an irregular step).
    let walkEnded =
      earliestUndecidedFoundPeak == nil && time > latestContinuation(after: state.lastPeakTime)
    // The delay lets |a| find a stretch's steps late (a bout's first ones); once the walk ended
    // none will be found in the stretches that ended by its last peak, and waiting granted their
    // hidden steps after a pause had been judged, dated inside it. A stretch that reaches past
    // the last peak still waits: the walk may go on in it (a jog's missed peaks), and its steps
    // would be granted and then found too.
    if walkEnded { compareStretches(dueAt: state.lastPeakTime, delay: 0) }
    compareStretches(dueAt: time, delay: parameters.strideCheckDelay)
    let waited = time - state.hiddenStepsSince
    // No stride-long interval came to hold them (|a| sees both legs now), or none will (the walk
    // ended). Waiting out the delay dated them up to 5 s after the walk's last step. Out of a
    // bout, no found step will follow the last one queued until a new bout is confirmed, and its
    // first steps are later than the peaks held now: the room before them is all there will be,
    // so they take it at once. Waiting there (pocket stairs where |a| showed peaks too irregular
    // to confirm for seconds) returned them after a pause had been judged, dated inside it.
    if state.hiddenSteps > 0,
      walkEnded || !state.inBout || waited > 2 * parameters.strideCheckDelay || !(waited >= 0)
    {
      releaseOverdueHiddenSteps(at: time)
    }
  }

  /// Returns the hidden steps that waited too long for a stride-long interval, as many as fit
  /// between the last step returned and the next one that may come, each at least
  /// ``Parameters/minimumStepInterval`` from its neighbours and at most the step period from the
  /// one before it; the others wait on (for an interval,
  /// for room at a later sample, for a gap or the end of the stream). `time` is the grid time
  /// being processed: no peak found from now on is earlier than the one just before it.
  ///
  /// Why not spread them all up to `time`, as at the end of a stream: when |a| sees both legs
  /// again (stairs, then a level walk), the sample that releases them comes a fraction of a step
  /// period after the last step, and they were dated some 0.05 s apart, followed by the walk's
  /// next peak (found a moment later, and earlier than they were) dated with the last of them.
  /// At a walk's cadence one fits in most intervals; at 2.5 steps/s and above none may fit, and
  /// they wait for the walk's end.
  private mutating func releaseOverdueHiddenSteps(at time: Double) {
    let from = state.lastEnqueuedTime
    guard from.isFinite else {
      releaseHiddenSteps(before: time)
      return
    }
    // The next step is no earlier than the earliest peak that may still become one, nor than
    // the peak that this grid sample may find (its time is the previous grid time).
    var next = time - coefficients.gridPeriod
    if let peak = earliestUndecidedFoundPeak { next = min(next, peak) }
    let spacing = hiddenStepSpacing
    let room = next - from
    guard room.isFinite, room >= 2 * spacing else { return }
    // At most hiddenSteps (≤ mostHiddenSteps), so the conversion is bounded.
    let count = Int(min(Double(state.hiddenSteps), (room / spacing).rounded(.down) - 1))
    // Evenly over the room, but no further apart than the walk's step period: after a walk's
    // last step the room reaches up to this sample, and spread over it they made up a walk in
    // the rest that followed (up to 5 s of it).
    var step = room / Double(count + 1)
    if state.stepPeriod.isFinite, state.stepPeriod > 0 {
      step = max(spacing, min(step, state.stepPeriod))
    }
    for index in 1...count { enqueueStep(at: from + step * Double(index)) }
    state.gyroscopeSteps &+= count
    state.hiddenSteps -= count
    if state.hiddenSteps == 0 { state.hiddenStepsSince = -.infinity }
  }

  /// At a gap in the accelerometer longer than ``Parameters/longestInputGap``, which ends the
  /// bout (`end` is the last sample's time before it): no step will be found in the strides that
  /// ended by then, so they are compared now, without waiting for the delay, and every hidden
  /// step still waiting is returned before the gap, as at the end of a stream. Left waiting, they
  /// were compared at the first samples after the gap and spread from the last step before it to
  /// a time after it: an hour's gap got steps dated every ten minutes or so inside it, where there
  /// are no data.
  mutating func settleStrides(beforeGapAfter end: Double) {
    markStepBand(upTo: end)
    compareStretches(dueAt: end, delay: 0)
    releaseHiddenSteps(before: end)
  }

  /// Gives the strides up to `time` (a grid time) the step band's RMS at it.
  private mutating func markStepBand(upTo time: Double) {
    while state.stridesWithStepBand < state.strideCount,
      state.strides[state.stridesWithStepBand].time <= time
    {
      state.strides[state.stridesWithStepBand].stepBandRMS = state.energy.squareRoot()
      state.stridesWithStepBand += 1
    }
  }

  /// Compares each stretch of strides that ended at least `delay` before `time` with the steps
  /// found in it, and grants the missing ones as hidden steps.
  private mutating func compareStretches(dueAt time: Double, delay: Double) {
    let count = coefficients.stridesPerCheck
    while state.strideCount > count {
      let first = state.strides[0]
      let last = state.strides[count]
      // Not due yet (and nor are the later ones); the waiting hidden steps are still checked.
      guard last.time + delay <= time else { break }
      guard isWalkingStretch(strides: count) else {
        dropStrides(1)
        continue
      }
      // Found steps are peak times; strides are rotation times: compare the reported times.
      let offset = parameters.reportedTimeOffset
      let found = foundSteps(after: first.time + offset, upTo: last.time + offset)
      let missing = 2 * count - found
      if Double(found) >= parameters.leastFoundStepsPerStride * Double(count),
        missing >= max(1, parameters.leastMissingSteps)
      {
        if state.hiddenSteps == 0 { state.hiddenStepsSince = time }
        state.hiddenSteps = min(state.hiddenSteps + missing, Self.mostHiddenSteps)
      }
      dropStrides(count)
    }
  }

  /// The most hidden steps waiting at once: two stretches of 8 strides.
  static let mostHiddenSteps = 4 * Coefficients.mostStridesPerCheck

  /// Before the found step at `time` (peak time): one hidden step in the middle of the interval
  /// since the previous step, when that interval is a stride long (the other leg stepped there).
  mutating func placeHiddenStep(before time: Double) {
    guard state.hiddenSteps > 0, state.lastEnqueuedTime.isFinite else { return }
    let interval = time - state.lastEnqueuedTime
    guard parameters.strideDuration.contains(interval) else { return }
    enqueueStep(at: state.lastEnqueuedTime + interval / 2)
    state.hiddenSteps -= 1
    state.gyroscopeSteps &+= 1
    if state.hiddenSteps == 0 { state.hiddenStepsSince = -.infinity }
  }

  /// The least interval between a hidden step released after waiting too long and its
  /// neighbours, s: the minimum step interval (at least one grid period).
  var hiddenStepSpacing: Double { max(parameters.minimumStepInterval, coefficients.gridPeriod) }

  /// Returns every hidden step still waiting, spread between the last step returned and `time`
  /// (at the end of a recording, or before a gap in the input).
  mutating func releaseHiddenSteps(before time: Double) {
    let count = state.hiddenSteps
    guard count > 0 else { return }
    let from = state.lastEnqueuedTime.isFinite ? state.lastEnqueuedTime : time
    let spacing = max(0, time - from) / Double(count + 1)
    for index in 1...count { enqueueStep(at: from + spacing * Double(index)) }
    state.gyroscopeSteps &+= count
    state.hiddenSteps = 0
    state.hiddenStepsSince = -.infinity
  }

  /// The shortest and the longest of the strides between the marks `first` and `last`
  /// (`first` < `last`), s, or `nil` when one of the marks did not swing like a limb
  /// (``Parameters/leastStrideRotationRate``).
  private func limbStrideLengths(
    from first: Int, through last: Int
  ) -> (shortest: Double, longest: Double)? {
    var shortest = Double.infinity
    var longest = 0.0
    for index in first...last {
      let stride = state.strides[index]
      guard stride.rotationRateRMS >= parameters.leastStrideRotationRate else { return nil }
      if index > first {
        let length = stride.time - state.strides[index - 1].time
        shortest = min(shortest, length)
        longest = max(longest, length)
      }
    }
    return (shortest, longest)
  }

  /// Whether the first `count` + 1 strides bound a stretch of walking by a limb.
  private func isWalkingStretch(strides count: Int) -> Bool {
    let duration = parameters.strideDuration
    guard let (shortest, longest) = limbStrideLengths(from: 0, through: count),
      longest <= duration.upperBound
    else { return false }
    if shortest < duration.lowerBound {
      // Quick strides (a fast descent) only in a run of like ones: a lone short cycle is a
      // stride's rotation that crossed the hysteresis twice.
      guard shortest >= parameters.shortestQuickStride,
        longest <= parameters.quickStrideSpread * shortest
      else { return false }
    }
    return state.strides[count].stepBandRMS >= parameters.leastStrideCheckRMS
  }

  /// Whether the gyroscope's strides confirm the pending peaks as a walk, at the peak at `time`:
  /// at least ``Parameters/stepsToConfirmStrideBout`` of them, in a step band as strong as an
  /// irregular bout needs (``Parameters/minimumIrregularBoutRMS``), no more than two per stride;
  /// every stride from the last one that began before the first of them swinging like a limb
  /// (``Parameters/leastStrideRotationRate``) and lasting from ``Parameters/shortestQuickStride``
  /// to the longest ``Parameters/strideDuration``; and the last stride no longer ago than that.
  ///
  /// Why: on stairs with the phone in a trouser pocket, |a| shows one leg's impact strongly and
  /// the other's weakly, and its autocorrelation can lock on the stride instead of the step; the
  /// peaks it finds, each at a regular interval from the one before, then never reach the
  /// periodicity a bout needs, and a whole flight went uncounted (MotionSense `sub01_ups_12`,
  /// 9.2–14.7 s: seven peaks held, none counted). The thigh's rotation says a walk is under way
  /// there; the strides' own comparison then adds the steps of the leg |a| missed.
  func stridesConfirmPendingPeaks(at time: Double) -> Bool {
    let count = state.pendingCount
    guard count >= max(1, parameters.stepsToConfirmStrideBout),
      state.energy >= parameters.minimumIrregularBoutRMS * parameters.minimumIrregularBoutRMS,
      state.strideCount >= 2
    else { return false }
    let last = state.strideCount - 1
    guard time - state.strides[last].time <= parameters.strideDuration.upperBound else {
      return false
    }
    // The strides from the last one that began before the first pending peak.
    let first = state.pendingTimes[0]
    var start = last
    while start > 0, state.strides[start].time > first { start -= 1 }
    guard state.strides[start].time <= first else { return false }
    let strides = last - start
    guard strides >= 1, count <= 2 * (strides + 1),
      let (shortest, longest) = limbStrideLengths(from: start, through: last)
    else { return false }
    return shortest >= parameters.shortestQuickStride
      && longest <= parameters.strideDuration.upperBound
  }

  /// How many of the remembered found steps lie in (`start`, `end`].
  private func foundSteps(after start: Double, upTo end: Double) -> Int {
    var found = 0
    for index in 0..<state.foundStepsCount where state.foundSteps[index] > start {
      if state.foundSteps[index] <= end { found += 1 }
    }
    return found
  }

  private mutating func dropStrides(_ count: Int) {
    let count = min(count, state.strideCount)
    for index in count..<state.strideCount { state.strides[index - count] = state.strides[index] }
    state.strideCount -= count
    state.stridesWithStepBand = max(0, state.stridesWithStepBand - count)
  }
}
