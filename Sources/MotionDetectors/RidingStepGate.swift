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
/// - **Walking or running ends the hold** once the report has lasted
///   ``Parameters/releaseConfirmation`` (5 s) with no sure ride (at least
///   ``Parameters/holdingConfidence``) or rest reported after it (`unknown`
///   does not interrupt it; the steps' own times count as time passing too): mid-ride, the
///   classifier now and then reports walking for a few seconds. The held steps from the last
///   ``Parameters/releaseWindow`` seconds before the report, and those of the confirmation, are
///   given back then. The classifier reports a change some seconds after it happened (5.7 s on
///   average, 9 s at most on the shared switching tests), so the steps of the first seconds of a
///   walk were held as ride steps; they are counted now, late but in order. Older held steps are
///   dropped.
/// - **Rest drops the held steps** (`stationary` without `automotive`), those of a walk being
///   confirmed too: the ride ended, or it waits. A bicycle waiting at a light reads as rest (the
///   classifier's standstill of a vehicle is reached only from a car, bus or train), and the
///   pedalling that follows would count until the classifier is sure of the ride again. So rest
///   begins a **stop**: the steps found during it are held until a report decides them. A sure
///   ride report resumes the ride (they are its steps, and the ride is timed again from that
///   report); a walk confirmed during the stop, the end of the input, a new timeline, or the
///   stop lasting ``Parameters/longestStop`` (120 s) give them all back, after which steps pass
///   again. Rest reported again during the stop decides nothing. So the gate never counts more
///   than ending the hold at the first rest would, and a walk after a stop keeps its steps,
///   later, unless a vehicle is reported with high confidence as it begins and no walk is
///   confirmed for over a minute.
/// - **A hold shorter than** ``Parameters/shortestRide`` (60 s) from the report that started it
///   to the walk or the rest that ends it was not a ride: every step it held is given back.
///
/// The gate never removes a step it has passed (a live count does not go down), so the first
/// seconds of a ride, before the classifier is sure of it, still count. Apple does not document
/// how `CMPedometer` treats rides; this is our choice, measured in docs/Steps.md.
///
/// Use: feed every step of ``StepDetector`` to ``offer(stepTime:)`` and every estimate of
/// ``ActivityClassifier`` to ``noteActivity(_:)`` as they come, then the sample's time to
/// ``advance(to:)``, and after each sample count the steps ``nextStep()`` returns, in that order
/// (``PedometerTracker`` does all of this). Times are the detectors' own (s, one clock).
/// Memory is fixed in `init`; nothing allocates afterwards.
public struct RidingStepGate: Sendable {
  /// Tuning of the gate. Values outside the documented ranges are clamped; NaN is the default.
  public struct Parameters: Sendable, Equatable {
    /// The least confidence of a `cycling` or `automotive` report that starts holding steps.
    /// `high` by default, the cautious choice: the classifier guesses a ride for a second or a
    /// few while a walk begins (14 of the 105 shared Oxford and IPOL walks, 8 of them with `high`
    /// confidence), and steps held by a guess that is followed by a report of rest are dropped.
    /// On the shared data, before ``releaseConfirmation``, `medium` counted one bike step fewer
    /// (41 of 1,220 instead of 42) and changed nothing else (docs/Steps.md).
    public var holdingConfidence: ActivityEstimate.Confidence = .high
    /// How long before a report of walking or running a held step is still given back, s;
    /// 0...60. The default, 12 s, covers the classifier's longest switching delay measured
    /// (9 s) with room to spare; a longer window gives back more of a ride's last pedalling.
    public var releaseWindow = 12.0
    /// How long a report of walking or running must last, with no report of rest or of a ride
    /// with at least ``holdingConfidence`` after it, before the held steps are given back, s; 0...``releaseWindow``. Mid-ride, the classifier
    /// reports walking for a few seconds now and then (on QROWD's rides for 3–4 s, with
    /// `medium` and then `low` confidence); given back at once, each such report counted the
    /// ride's last 12 s. The steps stay held meanwhile, so a walk after a ride is counted this
    /// much later. On the shared rides 5 s counts 4 of the 1,220 bike steps instead of 42 and
    /// changes no walk's count (docs/Steps.md).
    public var releaseConfirmation = 5.0
    /// A hold that ends (at the report of the walk that is then confirmed, or of rest) less than
    /// this after the report that started it was not a ride: every step it held is given back, s; 0...600. The
    /// classifier now and then takes the first seconds of a walk after a stop for a vehicle,
    /// with high confidence (walking with stops, made from the shared walks and standing trials:
    /// 96 of 13,657 steps lost without this rule and the confirmation, 82 with both; a minute of
    /// riding is far longer than those guesses). A real ride this short counts its steps.
    public var shortestRide = 60.0
    /// How long a stop (rest reported after a ride) holds the steps found during it, waiting for
    /// a report of the ride going on, s; 0...600. A bicycle waiting at a light reads as rest,
    /// not as a ride at a standstill, and the first seconds of pedalling after it would count
    /// until the classifier reports the ride again (2–5 s on QROWD's rides with stops,
    /// docs/Steps.md). Traffic lights rarely hold a rider more than two minutes. The cost is
    /// mostly latency: a walk begun during a stop is counted once it is confirmed, or when the
    /// stop ends. A step can come back up to this, plus ``shortestRide`` and the confirmation,
    /// after it was found (a walk taken for a ride just after the stop). 0 ends the hold at the
    /// first report of rest.
    public var longestStop = 120.0

    public init() {}
    public static let `default` = Parameters()
  }

  public let parameters: Parameters
  /// The release window actually used (``Parameters/releaseWindow`` clamped), s.
  private let releaseWindow: Double
  /// The confirmation actually used (``Parameters/releaseConfirmation`` clamped), s.
  private let releaseConfirmation: Double
  /// When walking or running was reported while steps were held, until the report is confirmed
  /// (it lasted ``Parameters/releaseConfirmation``) or contradicted (a sure ride or rest
  /// reported).
  private var pendingRelease: Double?
  /// The shortest ride actually used (``Parameters/shortestRide`` clamped), s.
  private let shortestRide: Double
  /// When the current hold started (the time of the report that started it), if known.
  private var holdStart: Double?
  /// The longest stop actually used (``Parameters/longestStop`` clamped), s.
  private let longestStop: Double
  /// When the current stop began: rest first reported in a ride, with no ride reported since.
  /// The stop ends once it has lasted ``longestStop``.
  private var stopStart: Double?
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

  /// Held steps at most: `span` seconds (the longest stretch whose steps may all be given back)
  /// at 5 steps/s (faster than any gait), plus 16.
  /// Older steps could not be given back anyway.
  private static func heldCapacity(span: Double) -> Int {
    16 + Int((span * 5).rounded(.up))
  }

  public init(parameters: Parameters = .default) {
    self.parameters = parameters
    let window = parameters.releaseWindow
    releaseWindow =
      window.isNaN ? Parameters.default.releaseWindow : Swift.min(Swift.max(window, 0), 60)
    let confirmation = parameters.releaseConfirmation
    releaseConfirmation =
      confirmation.isNaN
      ? Swift.min(Parameters.default.releaseConfirmation, releaseWindow)
      : Swift.min(Swift.max(confirmation, 0), releaseWindow)
    let shortest = parameters.shortestRide
    shortestRide =
      shortest.isNaN ? Parameters.default.shortestRide : Swift.min(Swift.max(shortest, 0), 600)
    let stop = parameters.longestStop
    longestStop = stop.isNaN ? Parameters.default.longestStop : Swift.min(Swift.max(stop, 0), 600)
    // The longest stretch given back at once: a walk confirmed after a hold too short to be a
    // ride that went on from a stop.
    let capacity = Self.heldCapacity(
      span: longestStop + Swift.max(releaseWindow, shortestRide) + releaseConfirmation)
    held = StepTimeRing(capacity: capacity)
    // Everything held can be given back at once, plus the steps offered before it is drained.
    ready = StepTimeRing(capacity: capacity + 16)
  }

  /// Tells the gate what the classifier reports now (its latest estimate, whose ``ActivityEstimate/startTime``
  /// is when the classifier reported it).
  public mutating func noteActivity(_ estimate: ActivityEstimate) {
    let riding = (estimate.cycling || estimate.automotive) && !estimate.walking && !estimate.running
    if estimate.walking || estimate.running {
      guard isHolding else { return }
      // A report without a usable time cannot date the held steps, nor be confirmed by time:
      // all of them come back now.
      guard estimate.startTime.isFinite else { return release(reportTime: nil) }
      // A second walking report (another confidence) does not restart the confirmation.
      if pendingRelease == nil { pendingRelease = estimate.startTime }
      if releaseConfirmation == 0 { release(reportTime: estimate.startTime) }
    } else if riding {
      // Only a sure report of a ride contradicts a walk being confirmed: the classifier's
      // doubtful ride reports as a walk starts or stops must not cost it its steps.
      guard estimate.confidence >= parameters.holdingConfidence else { return }
      // A report without a usable time cannot time the ride going on: the stop goes on.
      if stopStart != nil, !estimate.startTime.isFinite { return }
      pendingRelease = nil
      if !isHolding || stopStart != nil {
        // A ride starts, or goes on after a stop: timed from here, as a ride from rest would
        // be, so that a guess as a walk begins after the stop is a short hold that gives its
        // steps back. The steps found during the stop are this ride's now.
        holdStart = estimate.startTime.isFinite ? estimate.startTime : nil
        stopStart = nil
      }
      isHolding = true
    } else if !estimate.unknown {
      // At rest: the ride's steps stay out, unless it was too short to be one.
      guard isHolding else { return }
      if estimate.startTime.isFinite, isShortHold(endingAt: estimate.startTime) {
        return release(reportTime: estimate.startTime)
      }
      // Rest again during a stop (the classifier's confidence falling as a walk begins, or a
      // walk report it contradicts) decides nothing: the stop's steps stay held.
      guard stopStart == nil else {
        pendingRelease = nil
        return
      }
      // The first rest of a ride: its steps stay out, those of a walk being confirmed too (it
      // may be a flicker as the rider brakes; the gate never counts more than ending the hold
      // here would).
      dropHeld()
      pendingRelease = nil
      // The ride may only wait (a bicycle at a light): a stop begins. A report without a usable
      // time cannot be timed, so it ends the hold, as does a longest stop of 0.
      guard estimate.startTime.isFinite, longestStop > 0 else { return endHold() }
      stopStart = estimate.startTime
    }
  }

  /// Tells the gate the time of the latest sample, s: a report of walking that has lasted
  /// ``Parameters/releaseConfirmation`` gives the held steps back now. Call it after each sample
  /// (``PedometerTracker`` does); without it, the times of the steps offered confirm the report,
  /// later.
  public mutating func advance(to time: Double) {
    guard time.isFinite else { return }
    endStopIfOver(at: time)
    guard let reportTime = pendingRelease else { return }
    if time < reportTime - releaseWindow {
      // The clock restarted lower: confirm on the new clock (the old clock's held steps fall
      // outside the new report's window and are dropped then). A sample only a little earlier
      // than the report (out of order) changes nothing. The hold's start was on the old clock.
      pendingRelease = time
      holdStart = nil
    } else {
      confirmIfDue(at: time)
    }
  }

  /// The input ended: a report of walking still waiting for its confirmation gives the held
  /// steps back now, since nothing after it contradicted it, and so does a stop (no ride was
  /// reported after it). Take ``nextStep()`` after it.
  public mutating func finish() {
    if let reportTime = pendingRelease {
      release(reportTime: reportTime)
    } else if stopStart != nil {
      endStop()
    }
  }

  /// Ends a stop that has lasted the longest stop by `time`, or that a time far before it began
  /// shows to be on a timeline the clock has left (``endStop()``).
  private mutating func endStopIfOver(at time: Double) {
    guard let start = stopStart else { return }
    if time < start - releaseWindow || time - start >= longestStop { endStop() }
  }

  /// Ends a stop with no ride reported since it began: the steps found during it come back (the
  /// rule of rest ending the hold at once would have counted them), and the steps that follow
  /// pass.
  private mutating func endStop() {
    release(reportTime: nil)
  }

  /// Stops holding and drops what is held.
  private mutating func endHold() {
    dropHeld()
    pendingRelease = nil
    stopStart = nil
    isHolding = false
  }

  /// Whether the current hold, ending at `time`, is shorter than the shortest ride. A hold whose
  /// start is unknown, or on another timeline (ending before it started), is not.
  private func isShortHold(endingAt time: Double) -> Bool {
    guard let start = holdStart else { return false }
    let elapsed = time - start
    return elapsed >= 0 && elapsed < shortestRide
  }

  /// Gives the held steps back when the pending report of walking has lasted long enough by
  /// `time`.
  private mutating func confirmIfDue(at time: Double) {
    guard let reportTime = pendingRelease, time - reportTime >= releaseConfirmation else { return }
    release(reportTime: reportTime)
  }

  /// Gives back the held steps from ``Parameters/releaseWindow`` before `reportTime` on (all of
  /// them when `nil`), drops the older ones, and stops holding.
  private mutating func release(reportTime: Double?) {
    var oldestGivenBack = reportTime.map { $0 - releaseWindow } ?? -.infinity
    if let report = reportTime, isShortHold(endingAt: report) {
      // Too short to have been a ride: everything held comes back.
      oldestGivenBack = -.infinity
    }
    if stopStart != nil {
      // In a stop everything held was found after the ride's last report (the first rest
      // dropped the ride's own steps) and no ride was reported since: all of it comes back.
      oldestGivenBack = -.infinity
    }
    let newestGivenBack = reportTime.map { $0 + releaseWindow + releaseConfirmation } ?? .infinity
    while let time = held.popFirst() {
      // A held time far after the report belongs to a timeline the clock has since left.
      if time >= oldestGivenBack, time <= newestGivenBack, ready.append(time) {
        releasedSteps = Self.increment(releasedSteps)
      } else {
        withheldSteps = Self.increment(withheldSteps)
      }
    }
    pendingRelease = nil
    stopStart = nil
    isHolding = false
  }

  /// Offers a step the detector found at `stepTime` (s): it becomes countable at once, or is held
  /// while the person rides.
  public mutating func offer(stepTime: Double) {
    guard stepTime.isFinite else { return }
    // A step well after a walking report confirms it, whether or not the caller advances the
    // gate per sample.
    confirmIfDue(at: stepTime)
    endStopIfOver(at: stepTime)
    let startsNewTimeline = held.last.map { stepTime < $0 - releaseWindow } ?? false
    // A new timeline during a stop: no ride was reported since it began, so its steps come
    // back, and this one passes.
    if startsNewTimeline, stopStart != nil { endStop() }
    guard isHolding else {
      if !ready.append(stepTime) { withheldSteps = Self.increment(withheldSteps) }
      return
    }
    if startsNewTimeline {
      // The detector started a new timeline (its clock restarted lower): what was held belongs
      // to the old one and could never be matched with a report on the new clock.
      dropHeld()
      holdStart = nil
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
