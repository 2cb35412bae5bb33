// SPDX-License-Identifier: Apache-2.0

/// Steps walked and the motion activity from one accelerometer (and, where there is one, a
/// gyroscope): ``StepDetector``, ``ActivityClassifier`` and ``RidingStepGate`` fed together.
///
/// This is what `CMPedometer` and `CMMotionActivityManager` run in process, what `motiond` runs
/// for its history, what the dashboard shows and what `motionctl steps` counts, so that each
/// counts the same steps from the same samples. The detector's steps go through the gate, which
/// the classifier's reports drive: the steps of a bicycle or vehicle ride stay out of the count.
///
/// Use: feed every sample to ``process(time:acceleration:)`` (and gyroscope readings to
/// ``process(time:rotationRate:)``), then count the steps ``nextStep()`` returns until it returns
/// `nil`. At the end of a recording, ``flushQueuedStep()`` offers the steps the detector still
/// holds, one at a time (count ``nextStep()``'s after each), and ``finish()`` gives back what the
/// gate still holds for a walk it had not yet confirmed (count ``nextStep()``'s after it). Times are the caller's (s, one clock).
/// Memory is fixed in `init`; nothing allocates per sample.
public struct PedometerTracker: Sendable {
  /// What one accelerometer sample gave, before the gate.
  public struct Update: Sendable, Equatable {
    /// A step the detector confirmed with this sample (its time, s), whether or not the gate
    /// passes it. Counted steps come from ``PedometerTracker/nextStep()``.
    public var detectedStep: Double?
    /// The activity the classifier reports from this sample on, when it changed.
    public var activity: ActivityEstimate?
  }

  private var stepDetector: StepDetector
  private var activityClassifier: ActivityClassifier
  private var ridingGate: RidingStepGate
  /// Whether the gate hears the classifier. Without it nothing is ever held: every step the
  /// detector finds is counted (the detector alone, for evaluations).
  private let leavesOutRides: Bool

  /// - Parameters:
  ///   - stepParameters: the step detector's tuning.
  ///   - activityParameters: the activity classifier's tuning and model.
  ///   - ridingGate: the gate's tuning; `nil` counts every step the detector finds, rides
  ///     included.
  public init(
    stepParameters: StepDetector.Parameters = .default,
    activityParameters: ActivityClassifier.Parameters = .default,
    ridingGate: RidingStepGate.Parameters? = .default
  ) {
    stepDetector = StepDetector(parameters: stepParameters)
    activityClassifier = ActivityClassifier(parameters: activityParameters)
    self.ridingGate = RidingStepGate(parameters: ridingGate ?? .default)
    leavesOutRides = ridingGate != nil
  }

  /// The activity the classifier reports now.
  public var currentActivity: ActivityEstimate { activityClassifier.current }
  /// Accelerometer samples the step detector left out (``StepDetector/skippedSamples``).
  public var skippedSamples: Int { stepDetector.skippedSamples }
  /// Steps the gate held and never gave back (``RidingStepGate/withheldSteps``).
  public var withheldSteps: Int { ridingGate.withheldSteps }
  /// Steps the gate held and gave back when walking was reported (``RidingStepGate/releasedSteps``).
  public var releasedSteps: Int { ridingGate.releasedSteps }

  /// The earliest time at which the detector still holds a peak that may yet become a step
  /// (``StepDetector/earliestUndecidedPeak``), or `nil`. A pause judged from the time since the
  /// last step counted can wait while this is earlier than the pause: the walk may go on with it.
  public var earliestUndecidedStep: Double? { stepDetector.earliestUndecidedPeak }

  /// Feeds one accelerometer sample: time in s, acceleration in g with Apple's sign (gravity
  /// included). Returns the step the detector found and the activity change, if any; the steps
  /// to count come from ``nextStep()``.
  @discardableResult
  public mutating func process(time: Double, acceleration: SIMD3<Double>) -> Update {
    var update = Update()
    if let step = stepDetector.process(time: time, acceleration: acceleration) {
      update.detectedStep = step
      ridingGate.offer(stepTime: step)
    }
    if let estimate = activityClassifier.process(time: time, acceleration: acceleration) {
      update.activity = estimate
      if leavesOutRides { ridingGate.noteActivity(estimate) }
    }
    ridingGate.advance(to: time)
    return update
  }

  /// Feeds one gyroscope reading: time in s, rotation rate in rad/s (any frame). It lets the
  /// detector add the steps of a limb's strides that |a| missed
  /// (``StepDetector/process(time:rotationRate:)``).
  public mutating func process(time: Double, rotationRate: SIMD3<Double>) {
    stepDetector.process(time: time, rotationRate: rotationRate)
  }

  /// The next step to count (its time, s), oldest first, or `nil` when there is none now.
  public mutating func nextStep() -> Double? {
    ridingGate.nextStep()
  }

  /// At the end of a recording: offers the gate the next step the detector still holds (steps it
  /// would have confirmed with more samples) and returns its time, or `nil` when none is left.
  /// Take ``nextStep()`` until `nil` after each, as after a sample.
  public mutating func flushQueuedStep() -> Double? {
    guard let step = stepDetector.takeQueuedStep() else { return nil }
    ridingGate.offer(stepTime: step)
    return step
  }

  /// At the end of a recording, after ``flushQueuedStep()`` has returned `nil`: a report of
  /// walking that the gate was still confirming gives the held steps back now
  /// (``RidingStepGate/finish()``). Take ``nextStep()`` until `nil` after it.
  public mutating func finish() {
    ridingGate.finish()
  }
}
