// SPDX-License-Identifier: Apache-2.0

import MotionMath

/// Counts floors climbed and descended **on foot** from barometer readings and step times, as
/// `CMPedometerData.floorsAscended` / `floorsDescended` do: stairs count, lifts and escalators
/// ridden without walking do not.
///
/// How it works (all times in seconds, so the result does not depend on the barometer's rate):
/// 1. Each reading becomes a height (``BarometricAltitude``). Heights are averaged per
///    ``Parameters/binDuration`` and the median of the last three bins is the *level track*: a
///    door slam or an HVAC gust, which lasts a second or less, moves one bin and is voted out.
/// 2. The track's slope over ``Parameters/slopeWindow`` separates *settled* (|slope| below
///    ``Parameters/settledSlope``: standing, or walking on one level) from *changing*. Weather
///    moves the pressure by at most a few hPa per hour (≈ 0.01 m/s), far below stairs (0.1–0.4
///    m/s), so while settled the reference level simply follows the track: drift never accumulates.
/// 3. While the height is changing, the counter tracks whether the person is walking (a step
///    within ``Parameters/walkingGap``) as each bin moves the track. A change is *walked* when at
///    least ``Parameters/walkedFraction`` of its height was moved in bins judged walking: the
///    share is of metres, not seconds, so what the person does while the track lags behind a
///    change that has already ended (walking out of a lift as its doors open, standing still
///    after a quick flight) does not decide it. A walked change counts a floor each time the track moves a full ``Parameters/floorHeight``
///    (plus ``Parameters/floorMargin``) from the reference, and the reference moves by one floor
///    height, so long staircases count as they are climbed.
/// 4. When the track settles again the rest of a walked change is counted as Apple's and the
///    IPIN baseline's rule does: a change of at least ``Parameters/minimumFloorChange`` counts
///    `max(1, round(Δh / floorHeight))` floors (a 2 m mezzanine is one level); an unwalked change
///    (lift, escalator ridden standing) only moves the reference.
///
/// Time: readings and steps share one clock (the barometer's). A gap in the readings longer than
/// the *gap limit* (``Parameters/slopeWindow``, at least two bins) restarts the level tracking
/// with the reference at the level found after it, unless the steps noted during the gap cover it
/// by their times: a step at most ``Parameters/walkingGap`` after the reading before the gap, each
/// next one at most that after the one before, and the reading after the gap at most that after
/// the last. Otherwise the track cannot tell a lift ridden during the gap from stairs, so nothing
/// is counted across it (a change under way is dropped): steps that stop before the gap ends (a
/// walk to a lift), and late steps given back during the gap with times before it, do not make a
/// ride walked. The steps are chained in the order they are noted: one beyond the covered time
/// extends nothing, even if an earlier step noted after it would have closed the hole: simple, and
/// steps out of order can only make a walked gap unwalked (the climb under way is lost), never a
/// ride walked. A reading
/// earlier than the latest one by more than the gap limit starts a new timeline the same way (a
/// clock that restarted lower, or one reading stamped far in the future, would otherwise leave
/// every later reading "earlier" and no bin would ever close); a less early one joins the bin in
/// progress. A step counts as walking only if it is not later than the reading that closes the
/// bin by more than the gap limit, and a step earlier than the latest one by more than the limit
/// replaces it: one bogus future step time cannot make a lift ride count as climbed. The counts
/// are kept across all of these.
///
/// Late steps: a step noted after the level track has already judged the time it happened at
/// still counts for the change it falls in. The pedometer's riding gate gives the steps of a
/// walk back only once it is sure the walk is not part of a ride, up to about a minute late
/// (``RidingStepGate``); heard only from then on, a floor climbed right after a drive was found
/// unwalked. So each step covers the ``Parameters/walkingGap`` after it, whenever it is noted: a
/// change under way adds the newly covered part of its *moving time* (from its first to its last
/// bin that moved the track at more than ``Parameters/settledSlope``) to its walked share, taking
/// the track to have moved evenly over that time (the bins' own movements are not kept that
/// long), and an unwalked change whose moving time ended less than
/// ``Parameters/lateStepAllowance`` ago is kept (the last
/// ``maximumUnwalkedChanges``; a walked one is taken out before a new one can push it out) and
/// counts its floors at the next bin that counts no other floors if late steps show it was
/// walked after all. Those floors are dated (``Change/time``) at the reading where the change
/// settled, as steps in time would have counted them. A gap in the readings keeps the kept
/// changes, a new timeline forgets them. Steps noted
/// in time are judged as before, so with every step noted at once the counts are unchanged.
/// Late steps can only count less than the same steps in time: a change they reach after it
/// settled is judged on its whole length, settling included, while steps in time may count its
/// floors as they are climbed. With steps 0.5–0.7 s apart, as on stairs, this makes no
/// difference; with steps seconds apart it can.
public struct FloorCounter: Sendable {
  /// Tuning of the counter. Every value is used within the range its documentation gives (NaN:
  /// the default), so that no setting traps or hangs the counter.
  public struct Parameters: Sendable, Equatable {
    /// Height of one floor, m ("approximately three meters", Apple's documentation); 0.5...100.
    public var floorHeight = 3.0
    /// Extra climb beyond a floor height before a floor is counted during a climb, m;
    /// 0...``floorHeight``.
    public var floorMargin = 0.5
    /// Smallest settled change that counts as a level, m; 0...100.
    public var minimumFloorChange = 1.5
    /// Length of one averaging bin of the level track, s; 0.001...60.
    public var binDuration = 1.0
    /// Span over which the track's slope is measured, s; one to thirteen ``binDuration``s (the
    /// track keeps sixteen bins, three of which make the oldest median).
    public var slopeWindow = 4.0
    /// Largest |slope| that counts as settled, m/s; 0 or more.
    public var settledSlope = 0.04
    /// How long the slope must stay settled before a change is closed, s; 0...3600.
    public var settleDuration = 3.0
    /// Longest gap between steps that still counts as walking, s; 0...3600.
    public var walkingGap = 2.0
    /// Share of a change's height that must be moved while walking for it to count; 0...1.
    public var walkedFraction = 0.5
    /// How long after an unwalked change's moving time ends, steps noted late may still show
    /// that it was walked, s; 0...3600. The default covers the riding gate's delay after a ride
    /// (a hold shorter than its ``RidingStepGate/Parameters/shortestRide``, 60 s, given back
    /// after the ``RidingStepGate/Parameters/releaseConfirmation``, 5 s) with room for the step
    /// detector's own delay (about 5 s: the steps that show a change walked lie within its
    /// moving time). Steps found during a stop after a ride, and given back only when
    /// the stop ends (a walk the classifier keeps reporting as rest), can be later than this
    /// (up to ``RidingStepGate/Parameters/longestStop``, 120 s); they no longer count toward a
    /// floor.
    public var lateStepAllowance = 70.0
    public init() {}
    public static let `default` = Parameters()

    /// The parameters within their documented ranges. Unchecked, a NaN or infinite slope window
    /// trapped converting its bin count to `Int`, and a floor height of 0 or 1e-9 spun the
    /// floor-counting loop for ever.
    func sanitized() -> Parameters {
      let defaults = Parameters.default
      func clamp(_ value: Double, _ range: ClosedRange<Double>, _ fallback: Double) -> Double {
        value.isNaN ? fallback : Swift.min(Swift.max(value, range.lowerBound), range.upperBound)
      }
      var p = Parameters()
      p.floorHeight = clamp(floorHeight, 0.5...100, defaults.floorHeight)
      p.floorMargin = clamp(
        floorMargin, 0...p.floorHeight, Swift.min(defaults.floorMargin, p.floorHeight))
      p.minimumFloorChange = clamp(minimumFloorChange, 0...100, defaults.minimumFloorChange)
      p.binDuration = clamp(binDuration, 0.001...60, defaults.binDuration)
      p.slopeWindow = clamp(
        slopeWindow, p.binDuration...(13 * p.binDuration),
        clamp(defaults.slopeWindow, p.binDuration...(13 * p.binDuration), 0))
      p.settledSlope = clamp(settledSlope, 0...Double.infinity, defaults.settledSlope)
      p.settleDuration = clamp(settleDuration, 0...3600, defaults.settleDuration)
      p.walkingGap = clamp(walkingGap, 0...3600, defaults.walkingGap)
      p.walkedFraction = clamp(walkedFraction, 0...1, defaults.walkedFraction)
      p.lateStepAllowance = clamp(lateStepAllowance, 0...3600, defaults.lateStepAllowance)
      return p
    }
  }

  /// A change of the floor counts.
  public struct Change: Sendable, Equatable {
    /// Floors added to ``FloorCounter/floorsAscended`` by this reading.
    public var ascended: Int
    /// Floors added to ``FloorCounter/floorsDescended`` by this reading.
    public var descended: Int
    /// When these floors were walked, on the barometer's clock, s (finite, and never after the
    /// reading that counts them): the time of that reading, or, for floors that steps noted late
    /// showed to be walked, the time of the reading at which their change settled, where steps
    /// noted in time would have counted them.
    /// That is up to ``Parameters/lateStepAllowance`` before the steps are noted, and the count
    /// comes at the next bins after them (one such change per bin): after a gap in the readings,
    /// as much later as the gap. A history files the floors under this time, not under the
    /// reading's.
    public var time: Double

    /// Adds the floors of a settled change of `height` m (at least the minimum floor change):
    /// `max(1, round(|height| / floorHeight))`, up or down by its sign.
    mutating func count(settledHeight height: Double, floorHeight: Double) {
      // Heights of plausible pressures stay within about 36 km, over a floor height of at least
      // 0.5 m: well inside `Int`.
      let floors = Swift.max(1, Int((abs(height) / floorHeight).rounded()))
      if height > 0 { ascended += floors } else { descended += floors }
    }
  }

  public let parameters: Parameters
  /// ``parameters`` within their documented ranges: what the counter uses.
  private let tuning: Parameters
  /// Bins per slope window (1...13, from ``tuning``).
  private let binsPerSlope: Int
  /// The gap limit (see the type's overview), s.
  private let gapLimit: Double
  /// Floors climbed on foot so far.
  public private(set) var floorsAscended = 0
  /// Floors descended on foot so far.
  public private(set) var floorsDescended = 0
  /// Readings refused so far: a time that is not finite, or a pressure outside
  /// ``BarometricAltitude/plausiblePressureRange`` (a broken sensor, or a column in the wrong unit,
  /// such as Pa under an hPa heading). Counted here, where the refusal is made, so that a tool can
  /// say how many it left out.
  public private(set) var refusedReadings = 0

  // Averaging bin in progress.
  private var binStart: Double?
  private var binSum = 0.0
  private var binCount = 0
  // The last bins' means (a small fixed ring: no allocation per reading).
  private var bins = BinRing()
  // Level tracking.
  private var referenceHeight: Double?
  private var changing = false
  private var settledSince: Double?
  /// The track's level at the last bin, m (what each bin's movement is measured from).
  private var lastLevel: Double?
  /// How far the change under way has moved the track, m, and how much of that was walked (in
  /// bins judged walking, or covered by late steps).
  private var changeWalkedHeight = 0.0
  private var changeTotalHeight = 0.0
  /// The change's moving time: from the start of its first bin that moved the track at more than
  /// the settled slope to the end of its last one, s (`nil` until one has).
  private var changeMovingStart: Double?
  private var changeMovingEnd = 0.0
  /// Unwalked changes that settled recently, which late steps may still show to be walked.
  private var unwalkedChanges = UnwalkedChangeRing()
  /// How many recent unwalked changes are kept for late steps (the oldest is forgotten first).
  public static let maximumUnwalkedChanges = UnwalkedChangeRing.capacity
  /// The end of the time already credited as walked: by a bin judged walking when it closed,
  /// or by a late step's cover. A late step adds only the judged time after it, so that no time
  /// is credited twice.
  private var creditedUntil = -Double.infinity
  private var lastBinTime: Double?
  /// The latest reading's time (the current timeline's).
  private var lastReadingTime: Double?
  /// How far the steps noted since the latest reading cover the time after it, s: the latest
  /// reading's time plus ``Parameters/walkingGap``, pushed on by each step within it to that
  /// step's time plus the walking gap (to tell a walked gap in the readings from another; see the
  /// type's overview). Counting the steps instead, whatever their times, took 30 steps of a walk
  /// to a lift, or a late burst of steps from before the gap, for a 30 s gap walked.
  private var gapCoveredUntil = -Double.infinity
  private var lastStepTime = -Double.infinity

  public init(parameters: Parameters = .default) {
    self.parameters = parameters
    let tuning = parameters.sanitized()
    self.tuning = tuning
    // The slope spans whole bins; the ring holds 16, and the oldest median needs three of them.
    // The sanitized window is 1...13 bins, so this is in range.
    binsPerSlope = Swift.min(
      BinRing.capacity - 3,
      Swift.max(1, Int((tuning.slopeWindow / tuning.binDuration).rounded())))
    // At least two bins: with a window of one bin, the ordinary jitter of readings one bin apart
    // would restart the track at every reading.
    gapLimit = Swift.max(tuning.slopeWindow, 2 * tuning.binDuration)
  }

  /// Notes a step at `time` (s, the barometer's clock): floors only count while walking. A step
  /// earlier than the latest one by more than the gap limit is on a new timeline and replaces it.
  ///
  /// A step noted after the level track has passed its time (a step the riding gate held) is
  /// credited to the change under way, or to a recent unwalked change, that it falls in (see
  /// the type's overview).
  public mutating func noteStep(time: Double) {
    guard time.isFinite else { return }
    lastStepTime = time < lastStepTime - gapLimit ? time : Swift.max(lastStepTime, time)
    // A step within the cover since the latest reading pushes it on; a later one (a hole in the
    // walk) pushes nothing, and before the first reading there is no cover.
    if time <= gapCoveredUntil {
      gapCoveredUntil = Swift.max(gapCoveredUntil, time + tuning.walkingGap)
    }
    // The step covers the walking gap after it. The bins up to the latest one have been judged
    // already: the part of that cover they did not credit is credited now. The bins after it
    // see the step through `lastStepTime`. `creditedUntil` only grows on the barometer's
    // timeline (whatever the step times do), so no stretch is ever credited twice: a step
    // time repeated, or one far off, cannot add up to a lift ride walked.

    guard let judgedUntil = lastBinTime else { return }
    let lateStart = Swift.max(time, creditedUntil)
    let lateEnd = Swift.min(time + tuning.walkingGap, judgedUntil)
    guard lateEnd > lateStart else { return }
    creditedUntil = lateEnd
    if changing, let movingStart = changeMovingStart, changeMovingEnd > movingStart {
      // The covered share of the moving time, of the change's height.
      let covered =
        Self.overlap(lateStart, lateEnd, movingStart, changeMovingEnd)
        / (changeMovingEnd - movingStart)
      changeWalkedHeight = Swift.min(
        changeTotalHeight, changeWalkedHeight + covered * changeTotalHeight)
    }
    unwalkedChanges.credit(from: lateStart, to: lateEnd)
  }

  /// The length of the overlap of the intervals [a0, a1] and [b0, b1], s (0 when apart).
  static func overlap(_ a0: Double, _ a1: Double, _ b0: Double, _ b1: Double) -> Double {
    Swift.max(0, Swift.min(a1, b1) - Swift.max(a0, b0))
  }

  /// Feeds one barometer reading (`time` s, `pressure` kPa); returns the floors counted by it, if
  /// any. Readings outside ``BarometricAltitude/plausiblePressureRange`` (not finite, not
  /// positive, or physically impossible) are refused, counted in ``refusedReadings``, and leave
  /// the level track as it was: one
  /// absurd height averaged into a bin would count floors that were never climbed.
  public mutating func process(time: Double, pressure: Double) -> Change? {
    guard time.isFinite, BarometricAltitude.isPlausible(pressure: pressure) else {
      refusedReadings &+= 1
      return nil
    }
    let height = BarometricAltitude.height(atPressure: pressure)
    if let last = lastReadingTime {
      // A gap is known to be walked when the steps noted in it cover it by their times (one at
      // least every `walkingGap`, from the reading before it to this one): a barometer that drops
      // out for a few seconds on a staircase (a phone stream over Wi-Fi) must not lose the climb.
      // Any other gap, or a new timeline, restarts the track: what it knew no longer describes
      // this reading's level.
      let gap = time - last
      let walkedThrough = time <= gapCoveredUntil
      if gap < -gapLimit {
        restartLevelTracking(newTimeline: true)
      } else if gap > gapLimit && !walkedThrough {
        restartLevelTracking(newTimeline: false)
      }
    }
    let latest = Swift.max(lastReadingTime ?? time, time)
    lastReadingTime = latest
    gapCoveredUntil = latest + tuning.walkingGap
    guard let start = binStart else {
      binStart = time
      binSum = height
      binCount = 1
      return nil
    }
    if time - start < tuning.binDuration {
      binSum += height
      binCount += 1
      return nil
    }
    let mean = binSum / Double(binCount)
    let binTime = start + tuning.binDuration
    binStart = time
    binSum = height
    binCount = 1
    return closeBin(mean: mean, time: binTime, readingTime: time)
  }

  /// Forgets the level track (the next bins set the reference again), keeping the counts and the
  /// latest step. After a gap in the readings (`newTimeline` false) the unwalked changes that
  /// settled before it, and what has been credited, still hold: late steps may still count
  /// them. A new timeline forgets them too.
  private mutating func restartLevelTracking(newTimeline: Bool) {
    binStart = nil
    binSum = 0
    binCount = 0
    bins = BinRing()
    referenceHeight = nil
    changing = false
    settledSince = nil
    lastLevel = nil
    beginChange()
    if newTimeline {
      unwalkedChanges = UnwalkedChangeRing()
      creditedUntil = -.infinity
    }
    lastBinTime = nil
    lastReadingTime = nil
  }

  private mutating func closeBin(mean: Double, time: Double, readingTime: Double) -> Change? {
    bins.append(mean)
    guard bins.count >= 3 else {
      if referenceHeight == nil, bins.count == 1 { referenceHeight = mean }
      lastBinTime = time
      return nil
    }
    let level = bins.medianOfLastThree
    let elapsed = lastBinTime.map { Swift.max(0, time - $0) } ?? tuning.binDuration
    lastBinTime = time
    let moved = lastLevel.map { abs(level - $0) } ?? 0
    lastLevel = level
    guard bins.count >= binsPerSlope + 3 else {
      referenceHeight = level
      return nil
    }
    let slope = (level - bins.medianOfThree(endingAt: binsPerSlope)) / tuning.slopeWindow
    // A step later than this reading by more than the gap limit is not on this timeline (a bogus
    // time, or the clock went back since): it is no sign of walking now.
    let walking =
      time - lastStepTime <= tuning.walkingGap && lastStepTime - readingTime <= gapLimit
    if walking { creditedUntil = Swift.max(creditedUntil, time) }
    var reference = referenceHeight ?? level

    var change = Change(ascended: 0, descended: 0, time: readingTime)
    // A waiting change that late steps have shown to be walked is taken out first, so that an
    // unwalked change settling in this bin cannot push it out of a full ring.
    let lateWalked = unwalkedChanges.takeFirstWalked(fraction: tuning.walkedFraction)

    if abs(slope) >= tuning.settledSlope {
      if !changing {
        changing = true
        beginChange()
      }
      settledSince = nil
    } else if changing {
      if settledSince == nil { settledSince = time }
    }

    if changing {
      changeTotalHeight += moved
      if walking { changeWalkedHeight += moved }
      if moved > tuning.settledSlope * elapsed {
        if changeMovingStart == nil { changeMovingStart = time - elapsed }
        changeMovingEnd = time
      }
      let walked = changeWalkedHeight >= tuning.walkedFraction * changeTotalHeight
      if walked && walking {
        // Count whole floors while the climb goes on. Each turn moves the reference by a floor
        // height of at least 0.5 m towards a level that plausible pressures keep within about
        // 36 km, so the loops end.
        let step = tuning.floorHeight
        while level - reference >= step + tuning.floorMargin {
          reference += step
          change.ascended += 1
        }
        while reference - level >= step + tuning.floorMargin {
          reference -= step
          change.descended += 1
        }
      }
      if let since = settledSince, time - since >= tuning.settleDuration {
        let remainder = level - reference
        if abs(remainder) >= tuning.minimumFloorChange {
          if walked {
            change.count(settledHeight: remainder, floorHeight: tuning.floorHeight)
          } else if tuning.lateStepAllowance > 0, let movingStart = changeMovingStart,
            changeTotalHeight > 0
          {
            // Late steps may still show it was walked (a walk the riding gate is holding): kept
            // as its moving time, with the walked share of its height as a share of that time
            // (the track taken to move evenly over it).
            let duration = Swift.max(0, changeMovingEnd - movingStart)
            unwalkedChanges.append(
              UnwalkedChange(
                start: movingStart, end: changeMovingEnd, settlingReadingTime: readingTime,
                totalTime: duration,
                walkedTime: duration * changeWalkedHeight / changeTotalHeight,
                height: remainder))
          }
        }
        reference = level
        changing = false
        settledSince = nil
      }
    } else {
      // Settled: the reference follows the level, so weather drift never accumulates.
      reference = level
    }
    referenceHeight = reference

    // The waiting change that late steps have shown to be walked counts now, dated where it
    // settled; the unwalked ones are forgotten once the allowance for late steps has passed.
    // One change carries one date, so a bin that counts floors of its own puts the walked one
    // back for the next bin (a bin that counts floors settles nothing unwalked, so its slot is
    // still free), and further walked ones wait a bin each. The date is never after this
    // reading (a reading a little earlier than the latest one still closes a bin).
    if let lateWalked {
      if change.ascended + change.descended == 0 {
        change.time = Swift.min(lateWalked.settlingReadingTime, readingTime)
        change.count(settledHeight: lateWalked.height, floorHeight: tuning.floorHeight)
      } else {
        unwalkedChanges.append(lateWalked)
      }
    }
    unwalkedChanges.forgetUnwalked(
      fraction: tuning.walkedFraction, endedBefore: time - tuning.lateStepAllowance)

    floorsAscended += change.ascended
    floorsDescended += change.descended
    return change.ascended + change.descended > 0 ? change : nil
  }

  /// Starts the accounting of a new change (or clears it).
  private mutating func beginChange() {
    changeWalkedHeight = 0
    changeTotalHeight = 0
    changeMovingStart = nil
    changeMovingEnd = 0
  }

  /// Forgets everything seen so far (the counts restart at 0).
  public mutating func reset() {
    self = FloorCounter(parameters: parameters)
  }
}

/// The last few level-track bins, in a fixed-size ring (no heap allocation).
private struct BinRing: Sendable {
  private var storage = (
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
  )
  private var next = 0
  private(set) var count = 0
  static let capacity = 16

  mutating func append(_ value: Double) {
    withUnsafeMutableBytes(of: &storage) { raw in
      raw.storeBytes(of: value, toByteOffset: next * MemoryLayout<Double>.stride, as: Double.self)
    }
    next = (next + 1) % Self.capacity
    count = Swift.min(count + 1, Self.capacity)
  }

  /// The value `back` bins before the newest (0 = newest).
  func value(back: Int) -> Double {
    let index = (next - 1 - back + 2 * Self.capacity) % Self.capacity
    return withUnsafeBytes(of: storage) { raw in
      raw.load(fromByteOffset: index * MemoryLayout<Double>.stride, as: Double.self)
    }
  }

  /// The median of the three bins ending `back` bins before the newest.
  func medianOfThree(endingAt back: Int) -> Double {
    let a = value(back: back)
    let b = value(back: back + 1)
    let c = value(back: back + 2)
    return Swift.max(Swift.min(a, b), Swift.min(Swift.max(a, b), c))
  }

  var medianOfLastThree: Double { medianOfThree(endingAt: 0) }
}
