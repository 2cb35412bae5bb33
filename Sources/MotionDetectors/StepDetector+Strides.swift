// SPDX-License-Identifier: Apache-2.0

extension StepDetector {
  /// Feeds one gyroscope reading (time in s on the accelerometer's clock, rotation rate in rad/s,
  /// any frame). Optional: without it the detector counts from |a| alone, as before.
  ///
  /// With it, the steps that |a| missed inside a walk are added from the strides of a limb that
  /// carries the phone (``GyroscopeStrideTracker``): every ``Parameters/stridesPerCheck`` strides
  /// are compared, ``Parameters/strideCheckDelay`` after they end, with the steps found in them.
  /// A walk has two steps per stride; when at least ``Parameters/leastMissingSteps`` are missing,
  /// they are added, spread over the stretch. Only where
  /// - every stride lasts ``Parameters/strideDuration`` and swings like a limb
  ///   (``Parameters/leastStrideRotationRate``),
  /// - |a| shows stepping's impacts (``Parameters/leastStrideCheckRMS``), and
  /// - |a| found at least ``Parameters/leastFoundStepsPerStride`` steps per stride.
  ///
  /// This never removes a step. It matters on stairs with the phone in a trouser pocket, where one
  /// leg's step hardly shows in |a| (docs/Steps.md); walking and running already have two steps
  /// per stride and nothing is added. Added steps are returned by ``process(time:acceleration:)``
  /// like the others, up to the delay plus the stretch's length after they happened, and never
  /// before a step already returned. This call returns nothing itself.
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
    while state.stridesWithStepBand < state.strideCount,
      state.strides[state.stridesWithStepBand].time <= time
    {
      state.strides[state.stridesWithStepBand].stepBandRMS = state.energy.squareRoot()
      state.stridesWithStepBand += 1
    }
    let count = coefficients.stridesPerCheck
    while state.strideCount > count {
      let first = state.strides[0]
      let last = state.strides[count]
      guard last.time + parameters.strideCheckDelay <= time else { return }
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
        let spacing = (last.time - first.time) / Double(missing + 1)
        for index in 1...missing {
          enqueueStep(at: first.time + spacing * Double(index) + offset)
        }
        state.gyroscopeSteps &+= missing
      }
      dropStrides(count)
    }
  }

  /// Whether the first `count` + 1 strides bound a stretch of walking by a limb.
  private func isWalkingStretch(strides count: Int) -> Bool {
    let duration = parameters.strideDuration
    let rotation = parameters.leastStrideRotationRate
    for index in 0...count {
      let stride = state.strides[index]
      guard stride.rotationRateRMS >= rotation else { return false }
      if index > 0, !duration.contains(stride.time - state.strides[index - 1].time) {
        return false
      }
    }
    return state.strides[count].stepBandRMS >= parameters.leastStrideCheckRMS
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
