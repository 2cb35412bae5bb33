// SPDX-License-Identifier: Apache-2.0

/// Keeps the steps of a bicycle or vehicle ride out of the step count: the step detector's steps
/// pass through the gate, which holds them back while the activity classifier is sure the person
/// rides, and gives them back if walking or running is reported soon after.
///
/// Why: pedalling with the phone in a pocket, and some bus rides, move |a| in a steady rhythm that
/// no |a|-based step counter can tell from slow walking (on the shared QROWD rides the detector
/// alone counts about 48 steps per minute of cycling). `CMPedometerData` counts steps walked, so
/// the pedometer asks the activity classifier, which tells the two apart from the whole window's
/// features (``ActivityClassifier``).
///
/// The rules, in the order the two detectors report:
/// - **Holding starts** when the classifier reports `cycling` or `automotive` (and neither
///   `walking` nor `running`) with at least ``Parameters/holdingConfidence``. Until then every step
///   passes: the classifier's slow start (about 6 s of `unknown`) and a brief low-confidence
///   guess must not cost a walk its steps.
/// - **Holding goes on** through `cycling` or `automotive` at any confidence, a vehicle at a
///   standstill (`automotive` with `stationary`) and `unknown`: a ride has pauses and doubtful
///   stretches.
/// - **Walking or running ends the hold** and gives back the held steps from the last
///   ``Parameters/releaseWindow`` seconds before that report. The classifier reports a change some
///   seconds after it happened (5.7 s on average, 9 s at most on the shared switching tests), so
///   the steps of the first seconds of a walk were held as ride steps; they are counted now, late
///   but in order. Older held steps are dropped.
/// - **Rest ends the hold** (`stationary` without `automotive`) and drops the held steps: the
///   ride ended, and the steps that follow pass again.
///
/// The gate never removes a step it has passed (a live count does not go down), so the first
/// seconds of a ride, before the classifier is sure of it, still count. Apple does not document
/// how `CMPedometer` treats rides; this is our choice, measured in docs/Steps.md.
///
/// Use: feed every step of ``StepDetector`` to ``offer(stepTime:)`` and every estimate of
/// ``ActivityClassifier`` to ``noteActivity(_:)`` as they come, and after each sample count the
/// steps ``nextStep()`` returns, in that order. Times are the detectors' own (s, one clock).
/// Memory is fixed in `init`; nothing allocates afterwards.
public struct RidingStepGate: Sendable {
  /// Tuning of the gate. Values outside the documented ranges are clamped; NaN is the default.
  public struct Parameters: Sendable, Equatable {
    /// The least confidence of a `cycling` or `automotive` report that starts holding steps.
    /// `high` by default, the cautious choice: the classifier guesses a ride for a second or a
    /// few while a walk begins (14 of the 105 shared Oxford and IPOL walks, 8 of them with `high`
    /// confidence), and steps held by a guess that is followed by a report of rest are dropped.
    /// On the shared data `medium` counts one bike step fewer (41 of 1,220 instead of 42) and
    /// changes nothing else (docs/Steps.md).
    public var holdingConfidence: ActivityEstimate.Confidence = .high
    /// How long before a report of walking or running a held step is still given back, s;
    /// 0...60. The default, 12 s, covers the classifier's longest switching delay measured
    /// (9 s) with room to spare; a longer window gives back more of a ride's last pedalling.
    public var releaseWindow = 12.0

    public init() {}
    public static let `default` = Parameters()
  }

  public let parameters: Parameters
  /// The release window actually used (``Parameters/releaseWindow`` clamped), s.
  private let releaseWindow: Double
  /// Steps held while riding, oldest first.
  private var held: StepTimeRing
  /// Steps that may be counted, oldest first: passed or given back.
  private var ready: StepTimeRing
  /// Whether steps are being held.
  public private(set) var isHolding = false
  /// Steps held and never given back (dropped when a ride ended at rest, when they aged out of
  /// the release window, or at a new timeline), and steps lost because the caller let more than
  /// the held capacity plus 16 wait without taking them (``nextStep()`` after each sample never
  /// does).
  public private(set) var withheldSteps = 0
  /// Steps held and later given back because walking or running was reported.
  public private(set) var releasedSteps = 0

  /// Held steps at most: the release window at 5 steps/s (faster than any gait), at least 16.
  /// Older steps could not be given back anyway.
  private static func heldCapacity(releaseWindow: Double) -> Int {
    16 + Int((releaseWindow * 5).rounded(.up))
  }

  public init(parameters: Parameters = .default) {
    self.parameters = parameters
    let window = parameters.releaseWindow
    releaseWindow =
      window.isNaN ? Parameters.default.releaseWindow : Swift.min(Swift.max(window, 0), 60)
    let capacity = Self.heldCapacity(releaseWindow: releaseWindow)
    held = StepTimeRing(capacity: capacity)
    // Everything held can be given back at once, plus the steps offered before it is drained.
    ready = StepTimeRing(capacity: capacity + 16)
  }

  /// Tells the gate what the classifier reports now (its latest estimate, whose ``ActivityEstimate/startTime``
  /// is when the classifier reported it).
  public mutating func noteActivity(_ estimate: ActivityEstimate) {
    let riding = (estimate.cycling || estimate.automotive) && !estimate.walking && !estimate.running
    if estimate.walking || estimate.running {
      // A report without a usable time cannot date the held steps: all of them come back.
      let reportTime = estimate.startTime.isFinite ? estimate.startTime : nil
      let oldestGivenBack = reportTime.map { $0 - releaseWindow } ?? -.infinity
      let newestGivenBack = reportTime.map { $0 + releaseWindow } ?? .infinity
      while let time = held.popFirst() {
        // A held time far after the report belongs to a timeline the clock has since left.
        if time >= oldestGivenBack, time <= newestGivenBack, ready.append(time) {
          releasedSteps = Self.increment(releasedSteps)
        } else {
          withheldSteps = Self.increment(withheldSteps)
        }
      }
      isHolding = false
    } else if riding {
      if estimate.confidence >= parameters.holdingConfidence { isHolding = true }
    } else if !estimate.unknown {
      // At rest: the ride is over and its steps stay out.
      dropHeld()
      isHolding = false
    }
  }

  /// Offers a step the detector found at `stepTime` (s): it becomes countable at once, or is held
  /// while the person rides.
  public mutating func offer(stepTime: Double) {
    guard stepTime.isFinite else { return }
    guard isHolding else {
      if !ready.append(stepTime) { withheldSteps = Self.increment(withheldSteps) }
      return
    }
    if let newest = held.last, stepTime < newest - releaseWindow {
      // The detector started a new timeline (its clock restarted lower): what was held belongs
      // to the old one and could never be matched with a report on the new clock.
      dropHeld()
    }
    if held.isFull {
      _ = held.popFirst()
      withheldSteps = Self.increment(withheldSteps)
    }
    _ = held.append(stepTime)
  }

  /// The next step to count, oldest first, or `nil` when there is none.
  public mutating func nextStep() -> Double? {
    ready.popFirst()
  }

  /// Steps held now, waiting for a report of walking (given back) or of rest (dropped).
  public var heldStepCount: Int { held.count }

  private mutating func dropHeld() {
    withheldSteps = Self.increment(withheldSteps, by: held.count)
    held.removeAll()
  }

  private static func increment(_ value: Int, by amount: Int = 1) -> Int {
    let (sum, overflow) = value.addingReportingOverflow(amount)
    return overflow ? Int.max : sum
  }
}
