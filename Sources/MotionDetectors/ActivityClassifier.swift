// SPDX-License-Identifier: Apache-2.0

/// Classifies motion activity (stationary, walking, running, cycling, automotive, unknown) from
/// accelerometer samples, causally, with hysteresis.
///
/// CONTRACT (shared by the activity API, the daemon and `motionctl activity`; keep the signatures):
/// - `init(parameters:)`, `process(time:acceleration:) -> ActivityEstimate?`, `current`, `reset()`.
/// - Input: `time` in seconds, non-decreasing; `acceleration` in g, gravity included (Apple's sign
///   at the API boundary; only magnitudes and directions relative to the mean matter, so either
///   sign works). Any rate from about 15 Hz up.
/// - Output: a new estimate when the reported activity changes, else `nil`; `current` is the
///   latest.
///
/// How: ``ActivityFeatureExtractor`` yields a feature vector of the last 5 s every second;
/// ``ActivityModel`` turns it into class log-probabilities; a hidden-Markov forward filter
/// (``Parameters/stayProbability`` per second, and leaving a vehicle for `stationary` made rare,
/// because people walk out of vehicles and vehicles stop often) accumulates them into a posterior.
/// Hidden states: the five classes, a stopped vehicle and a ride not yet confirmed (see
/// `stateCount`).
/// The reported class changes only when another class's posterior reaches
/// ``Parameters/enterThreshold``; it falls back to `unknown` when its own posterior drops under
/// ``Parameters/exitThreshold`` with no successor, or when the input lies far outside the training
/// data (the evidence is then ignored and the posterior drifts back to the starting one). A
/// window that no road vehicle could produce — the phone turned in a hand, or motion almost
/// purely along gravity (a lift) — gives `stationary` and `automotive` the same evidence, so the
/// filter's memory decides between them (``Parameters/vehicleNeutralOrientationChange``,
/// ``Parameters/vehicleNeutralVerticalRatio``), and a window whose |a| varies too slowly for a
/// gait is no evidence of walking or running (``Parameters/largestSlowPowerShareOfAGait``). While
/// `automotive`, the `stationary` flag is set when the stopped-vehicle state holds
/// ``Parameters/enterThreshold`` of the vehicle's probability (a vehicle waiting at a light), and
/// cleared under its complement.
public struct ActivityClassifier: Sendable {
  /// The classifier's thresholds, confirmation times and model; ``default`` is the tuning this
  /// package ships.
  public struct Parameters: Sendable, Equatable {
    /// Probability per window (1 s) that the activity stays the same.
    public var stayProbability = 0.95
    /// Probability per window of going straight from automotive to stationary.
    public var automotiveToStationary = 0.004
    /// Posterior a class needs to become the reported one.
    public var enterThreshold = 0.6
    /// Consecutive windows a new class must reach ``enterThreshold`` before it replaces another.
    public var confirmWindows = 2
    /// As ``confirmWindows``, for `automotive` replacing another class. Rides last minutes, so one
    /// more window (1 s) costs a vehicle report nothing, while a seated or standing person shifting
    /// the phone in a pocket gives vehicle-like evidence for a window or two at a time (in the
    /// shared MotionSense sitting and standing files, 2 windows misread 141 at-rest windows as a
    /// vehicle, 3 misread 129; switching delays unchanged).
    public var vehicleConfirmWindows = 3
    /// Prior weight of a vehicle at the start, relative to each other class (sitting down and
    /// handling the phone can look like a ride for a few seconds).
    public var initialVehicleWeight = 0.1
    /// Posterior under which the reported class is dropped (to `unknown` if none enters).
    public var exitThreshold = 0.35
    /// Posterior for `high` confidence (kept down to `highThreshold - confidenceMargin`).
    public var highThreshold = 0.9
    /// Posterior for `medium` confidence (kept down to `mediumThreshold - confidenceMargin`).
    public var mediumThreshold = 0.7
    /// Hysteresis on the confidence levels.
    public var confidenceMargin = 0.1
    /// Largest standardised feature (in training standard deviations) still trusted as evidence.
    public var outlierLimit = 12.0
    /// Share of the posterior pulled to uniform per window of untrusted input.
    public var outlierDecay = 0.3
    /// Share of the generic change probability that goes to a moving vehicle (entering one is rarer
    /// than changing gait, and sitting still can look like a smooth ride for a while).
    public var vehicleEntryShare = 0.05
    /// Factor on ``vehicleEntryShare`` when coming from `stationary` rather than on foot or a
    /// bicycle.
    public var vehicleEntryFromRest = 0.1
    /// Probability per window that a vehicle stops, or starts again.
    public var vehicleStopChange = 0.03
    /// How long a ride entered straight from rest (or at the start, with no history) has to
    /// last to be taken as a real one, s (the mean; windows are 1 s). Until then it is
    /// *unconfirmed*, and when the motion ends it is read as the person sitting or standing still
    /// again, not as a vehicle waiting. Default: 20 s. NaN means the default; below about 4.6 s
    /// (with the other defaults) each stage is left after one window, the quickest the stages
    /// allow.
    public var vehicleConfirmationTime = 20.0
    /// Probability per window that an unconfirmed ride turns out to be the person at rest after
    /// all (shifting in a seat, settling down: motion that looks like a smooth ride for a while).
    public var unconfirmedVehicleToStationary = 0.1
    /// Largest log-likelihood ratio (natural log) one window can contribute between two classes.
    public var evidenceLimit = 3.0
    /// Orientation change over a window (1 − |mean a| / mean |a|) above which the window says
    /// nothing about whether the person is at rest or in a vehicle. 0.1 is an rms tilt of about
    /// 25°: a road vehicle would have to accelerate at about 0.45 g, and keep it up, to tilt the
    /// specific force that far. It is the phone being turned in a hand, at a desk or on a bus
    /// alike, so the filter keeps what it believed before. (1.1 % of the shared automotive windows
    /// and none of the stationary ones exceed it; without it, a phone turned through its
    /// orientations at a desk read as a vehicle.) Zero or less turns the rule off.
    public var vehicleNeutralOrientationChange = 0.1
    /// Ratio of the acceleration's standard deviation along gravity to the horizontal one above
    /// which a window says nothing about rest against a vehicle either: road vehicles speed up,
    /// brake and turn horizontally, so motion almost purely along gravity is a lift (whose
    /// speeding up and slowing down otherwise read as a car's). No shared training window
    /// exceeds 4.9 (automotive 4.4). Zero or less turns the rule off.
    public var vehicleNeutralVerticalRatio = 6.0
    /// Share of |a|'s power below 0.6 Hz (feature 4) above which a window is no evidence of
    /// walking or running: a gait puts |a|'s variation at its step and stride rhythm, 0.7 Hz and
    /// up, and the most any shared walking or running window has below 0.6 Hz is 0.23. A burst of
    /// shaking, a bump or a phone put down has most of it there (its envelope), and otherwise
    /// reads as a gait because |a| varies as much. 1 or more turns the rule off.
    public var largestSlowPowerShareOfAGait = 0.5
    /// The model (coefficients).
    public var model: ActivityModel = .trained

    public init() {}
    public static let `default` = Parameters()
  }

  public let parameters: Parameters
  /// The activity reported now, with its confidence and the time it began; unknown until the first
  /// window is classified.
  public private(set) var current = ActivityEstimate(unknown: true)
  /// Posterior probability of each ``ActivityClass`` after the latest window (uniform at first).
  public private(set) var posterior: [Double]
  /// The class reported now, `nil` while unknown.
  public private(set) var reported: ActivityClass?

  private var extractor = ActivityFeatureExtractor()
  private var evidence: [Double]
  /// Posterior of the hidden states (see ``stateCount``) and the prediction scratch.
  private var state: [Double]
  private var predicted: [Double]
  private let transition: [Double]
  private let initialState: [Double]
  /// ``Parameters/vehicleNeutralOrientationChange`` and ``Parameters/vehicleNeutralVerticalRatio``
  /// as the features express them (log10), +∞ when off.
  private let vehicleNeutralLogOrientationChange: Double
  private let vehicleNeutralLogVerticalRatio: Double
  private var stillInVehicle = false
  /// A class waiting to be confirmed, and for how many windows it has led.
  private var candidate: Int?
  private var candidateCount = 0
  /// The class behind ``current`` (`nil` for unknown).
  private var currentClass: ActivityClass?

  public init(parameters: Parameters = .default) {
    self.parameters = parameters
    posterior = .init(repeating: 1 / Double(ActivityClass.count), count: ActivityClass.count)
    evidence = .init(repeating: 0, count: ActivityClass.count)
    initialState = Self.initialState(parameters)
    state = initialState
    predicted = state
    transition = Self.transitions(parameters)
    vehicleNeutralLogOrientationChange = Self.log10Threshold(
      parameters.vehicleNeutralOrientationChange)
    vehicleNeutralLogVerticalRatio = Self.log10Threshold(parameters.vehicleNeutralVerticalRatio)
  }

  /// log10 of a positive threshold; +∞ (never exceeded) for zero, negative or NaN.
  private static func log10Threshold(_ value: Double) -> Double {
    value > 0 ? Double.log(value) / Double.log(10) : .infinity
  }

  /// Feeds one sample; returns the new estimate when the activity changed.
  public mutating func process(time: Double, acceleration: SIMD3<Double>) -> ActivityEstimate? {
    guard extractor.process(time: time, acceleration: acceleration) else { return nil }
    return decide(features: extractor.features, time: time)
  }

  /// Feeds one precomputed feature vector (what ``ActivityFeatureExtractor`` yields at `time`);
  /// evaluation replays cached features through it instead of re-reading the samples per model.
  package mutating func process(features: [Double], time: Double) -> ActivityEstimate? {
    decide(features: features, time: time)
  }

  private mutating func decide(features: [Double], time: Double) -> ActivityEstimate? {
    update(features)
    var next = ActivityEstimate(startTime: time)
    if let reported {
      switch reported {
      case .stationary: next.stationary = true
      case .walking: next.walking = true
      case .running: next.running = true
      case .cycling: next.cycling = true
      case .automotive:
        next.automotive = true
        next.stationary = stillInVehicle
      }
      next.confidence = confidence(for: posterior[reported.rawValue])
    } else {
      next.unknown = true
      next.confidence = .low
    }
    guard !next.sameActivity(as: current) else { return nil }
    current = next
    currentClass = reported
    return next
  }

  /// Forgets everything seen so far.
  public mutating func reset() {
    self = ActivityClassifier(parameters: parameters)
  }

  /// Hidden states of the forward filter: the five classes; a vehicle standing still (which
  /// emits like `stationary` but is reached only from a vehicle or on foot, and is left for
  /// `stationary` only rarely: that is what keeps a red light `automotive`); and an unconfirmed
  /// ride in ``confirmationStages`` stages (each emits like `automotive`), the only way into a
  /// vehicle from rest or from the start.
  ///
  /// The unconfirmed ride is why shifting in a seat does not become a long stop at a light: a
  /// vehicle entered on foot may stop at once (a bus at its stop), but motion that starts from
  /// rest and ends within seconds is a person settling, so an unconfirmed ride is left for
  /// `stationary` (``Parameters/unconfirmedVehicleToStationary``), never for a stopped vehicle,
  /// and becomes a real one only after lasting (``Parameters/vehicleConfirmationTime``). The
  /// stages make that time nearly fixed rather than memoryless: through one state, a third of a
  /// ride's probability would be confirmed within its first 8 s; through four stages in a row,
  /// about 6 %.
  static let confirmationStages = 4
  static let stoppedVehicle = 5
  static let firstUnconfirmedStage = 6
  static let stateCount = firstUnconfirmedStage + confirmationStages

  static func isUnconfirmedVehicle(_ state: Int) -> Bool { state >= firstUnconfirmedStage }

  /// The class whose evidence a hidden state emits.
  static func emittingClass(_ state: Int) -> Int {
    if state == stoppedVehicle { return ActivityClass.stationary.rawValue }
    if isUnconfirmedVehicle(state) { return ActivityClass.automotive.rawValue }
    return state
  }

  /// The probability a hidden state starts with, or is pulled towards by untrusted input: the
  /// five classes alike, except a vehicle, which is only entered unconfirmed and with
  /// ``Parameters/initialVehicleWeight`` (sitting down and handling the phone can look like a
  /// ride for a few seconds).
  static func initialState(_ p: Parameters) -> [Double] {
    let weight = max(p.initialVehicleWeight, 0)
    var state = [Double](repeating: 0, count: stateCount)
    for c in 0..<ActivityClass.count where c != ActivityClass.automotive.rawValue {
      state[c] = 1
    }
    state[firstUnconfirmedStage] = weight
    let sum = Double(ActivityClass.count - 1) + weight
    for s in 0..<stateCount { state[s] /= sum }
    return state
  }

  /// The ``stateCount`` × ``stateCount`` transition matrix per window, row-major
  /// `[from * stateCount + to]`. Every row is a probability distribution whatever the parameters:
  /// an unconfirmed stage's rate on is at most what its other ways out leave (a short confirmation
  /// time once made its stay negative), and any row the parameters would push out of shape has
  /// its ways out clamped to 0...1 and scaled to sum to at most 1.
  static func transitions(_ p: Parameters) -> [Double] {
    let n = stateCount
    let stationary = ActivityClass.stationary.rawValue
    let moving = ActivityClass.automotive.rawValue
    let stopped = stoppedVehicle
    let lastStage = firstUnconfirmedStage + confirmationStages - 1
    // Each stage is left at this rate, so the stages together last about the confirmation time.
    let confirmationTime =
      p.vehicleConfirmationTime.isNaN
      ? Parameters.default.vehicleConfirmationTime : p.vehicleConfirmationTime
    let stageRate = min(1, Double(confirmationStages) / max(confirmationTime, 1))
    var t = [Double](repeating: 0, count: n * n)
    let move = (1 - p.stayProbability) / 4
    for from in 0..<n {
      for to in 0..<n where to != from {
        let confirmedFrom = from == moving || from == stopped
        let confirmedTo = to == moving || to == stopped
        if isUnconfirmedVehicle(from) {
          // On to the next stage (the last one to a real ride), or over (the person was at
          // rest); never a stop at a light.
          let next = from == lastStage ? moving : from + 1
          if to == next {
            t[from * n + to] = stageRate
          } else if to == stationary {
            t[from * n + to] = p.unconfirmedVehicleToStationary
          } else if !isUnconfirmedVehicle(to) && !confirmedTo {
            t[from * n + to] = move  // out on foot or by bicycle
          }
        } else if isUnconfirmedVehicle(to) {
          // People walk to vehicles; straight from sitting still is rarer still.
          t[from * n + to] =
            from == stationary && to == firstUnconfirmedStage
            ? move * p.vehicleEntryShare * p.vehicleEntryFromRest : 0
        } else if confirmedFrom && confirmedTo {
          t[from * n + to] = p.vehicleStopChange
        } else if confirmedFrom && to == stationary {
          t[from * n + to] = p.automotiveToStationary
        } else if from == stationary && confirmedTo {
          t[from * n + to] = 0  // from rest only through an unconfirmed ride
        } else if to == stopped {
          t[from * n + to] = move / 10  // on foot into a vehicle that is standing still
        } else if to == moving {
          t[from * n + to] = move * p.vehicleEntryShare
        } else {
          t[from * n + to] = move
        }
      }
      // Out-of-range parameters (a negative or NaN probability, a stay probability over 1) must
      // not give negative or NaN probabilities either; in range this changes nothing.
      for to in 0..<n where to != from {
        let value = t[from * n + to]
        t[from * n + to] = value > 0 ? min(value, 1) : 0
      }
      if isUnconfirmedVehicle(from) {
        // The stage's rate on takes only what the other ways out leave (its stay is then 0: the
        // stage lasts one window), rather than pushing the stay below 0.
        let next = from == lastStage ? moving : from + 1
        var others = 0.0
        for to in 0..<n where to != from && to != next { others += t[from * n + to] }
        t[from * n + next] = min(t[from * n + next], max(0, 1 - others))
      }
      var off = 0.0
      for to in 0..<n where to != from { off += t[from * n + to] }
      if off > 1 {
        let scale = off
        off = 0
        for to in 0..<n where to != from {
          t[from * n + to] /= scale
          off += t[from * n + to]
        }
      }
      t[from * n + from] = max(0, 1 - off)
    }
    return t
  }

  /// Gives `stationary` and `automotive` the same evidence (their combined probability, split
  /// evenly) when the window is unlike anything a road vehicle does and yet not evidence of rest
  /// either: the phone turned in a hand, or a ride straight up or down (see
  /// ``Parameters/vehicleNeutralOrientationChange`` and ``Parameters/vehicleNeutralVerticalRatio``).
  /// The other classes keep their evidence, and the filter's memory decides between the two.
  private mutating func shareRestAndVehicleEvidence(ifUninformative features: [Double]) {
    typealias Feature = ActivityFeatureExtractor
    let verticalRatio =
      features[Feature.verticalDeviationFeature] - features[Feature.horizontalDeviationFeature]
    guard
      features[Feature.orientationChangeFeature] > vehicleNeutralLogOrientationChange
        || verticalRatio > vehicleNeutralLogVerticalRatio
    else { return }
    let rest = ActivityClass.stationary.rawValue
    let vehicle = ActivityClass.automotive.rawValue
    let higher = max(evidence[rest], evidence[vehicle])
    let lower = min(evidence[rest], evidence[vehicle])
    // log((e^higher + e^lower) / 2), without overflow.
    let shared = higher + Double.log((1 + Double.exp(lower - higher)) / 2)
    evidence[rest] = shared
    evidence[vehicle] = shared
  }

  /// Lowers the evidence for `walking` and `running` to the window's least when |a| varies too
  /// slowly for a gait (``Parameters/largestSlowPowerShareOfAGait``).
  private mutating func withholdGaitEvidence(ifArrhythmic features: [Double]) {
    guard
      features[ActivityFeatureExtractor.slowestBandShareFeature]
        > parameters.largestSlowPowerShareOfAGait
    else { return }
    var least = evidence[0]
    for c in 1..<ActivityClass.count { least = min(least, evidence[c]) }
    evidence[ActivityClass.walking.rawValue] = least
    evidence[ActivityClass.running.rawValue] = least
  }

  /// One window: forward filter, then the hysteresis on the reported class.
  private mutating func update(_ features: [Double]) {
    let n = Self.stateCount
    let k = ActivityClass.count
    let largest = parameters.model.logProbabilities(features, into: &evidence)
    let trusted = largest.isFinite && largest <= parameters.outlierLimit
    shareRestAndVehicleEvidence(ifUninformative: features)
    withholdGaitEvidence(ifArrhythmic: features)
    // Prediction step.
    for to in 0..<n {
      var sum = 0.0
      for from in 0..<n { sum += state[from] * transition[from * n + to] }
      predicted[to] = sum
    }
    // Update step: each window's evidence is limited to `evidenceLimit` (natural log) between
    // classes, so that no single window decides and two or three consistent ones are needed.
    var top = -Double.infinity
    for c in 0..<k { top = max(top, evidence[c]) }
    for s in 0..<n {
      if trusted {
        let e = max(evidence[Self.emittingClass(s)] - top, -parameters.evidenceLimit)
        state[s] = predicted[s] * Double.exp(e)
      } else {
        state[s] = predicted[s] + parameters.outlierDecay * (initialState[s] - predicted[s])
      }
    }
    var sum = 0.0
    for s in 0..<n { sum += state[s] }
    if !(sum > 0) || !sum.isFinite {
      for s in 0..<n { state[s] = initialState[s] }
    } else {
      for s in 0..<n { state[s] /= sum }
    }
    for c in 0..<k { posterior[c] = state[c] }
    for s in Self.firstUnconfirmedStage..<n {
      posterior[ActivityClass.automotive.rawValue] += state[s]
    }
    posterior[ActivityClass.automotive.rawValue] += state[Self.stoppedVehicle]
    // Hysteresis on the reported class.
    var best = 0
    for c in 1..<k where posterior[c] > posterior[best] { best = c }
    // A new class must lead above the entry threshold for `confirmWindows` windows in a row, so
    // evidence that alternates between two classes cannot make the report flip back and forth.
    if posterior[best] >= parameters.enterThreshold && best != reported?.rawValue {
      if candidate == best {
        candidateCount += 1
      } else {
        candidate = best
        candidateCount = 1
      }
      // From unknown, the first class is taken at once (nothing to flicker against).
      let needed =
        best == ActivityClass.automotive.rawValue
        ? parameters.vehicleConfirmWindows : parameters.confirmWindows
      if candidateCount >= (reported == nil ? 1 : needed) {
        reported = ActivityClass(rawValue: best)
        candidate = nil
      }
    } else {
      candidate = nil
    }
    if let reported, best != reported.rawValue,
      posterior[reported.rawValue] < parameters.exitThreshold,
      posterior[best] < parameters.enterThreshold
    {
      self.reported = nil
    }
    if !trusted && posterior[best] < parameters.enterThreshold { reported = nil }
    // Stationary inside a vehicle, with its own hysteresis.
    if reported == .automotive {
      let share =
        state[Self.stoppedVehicle] / max(posterior[ActivityClass.automotive.rawValue], 1e-300)
      if share >= parameters.enterThreshold { stillInVehicle = true }
      if share < 1 - parameters.enterThreshold { stillInVehicle = false }
    } else {
      stillInVehicle = false
    }
  }

  private func confidence(for probability: Double) -> ActivityEstimate.Confidence {
    // A level already reported for this class is kept down to its threshold minus the margin.
    let held = currentClass == reported ? current.confidence : .low
    func reaches(_ threshold: Double, _ level: ActivityEstimate.Confidence) -> Bool {
      probability >= (held >= level ? threshold - parameters.confidenceMargin : threshold)
    }
    if reaches(parameters.highThreshold, .high) { return .high }
    if reaches(parameters.mediumThreshold, .medium) { return .medium }
    return .low
  }
}
