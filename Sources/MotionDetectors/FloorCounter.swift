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
///    within ``Parameters/walkingGap``). A walked change counts a floor each time the track moves
///    a full ``Parameters/floorHeight`` (plus ``Parameters/floorMargin``) from the reference, and
///    the reference moves by one floor height, so long staircases count as they are climbed.
/// 4. When the track settles again the rest of a walked change is counted as Apple's and the
///    IPIN baseline's rule does: a change of at least ``Parameters/minimumFloorChange`` counts
///    `max(1, round(Δh / floorHeight))` floors (a 2 m mezzanine is one level); an unwalked change
///    (lift, escalator ridden standing) only moves the reference.
public struct FloorCounter: Sendable {
  /// Tuning of the counter.
  public struct Parameters: Sendable, Equatable {
    /// Height of one floor, m ("approximately three meters", Apple's documentation).
    public var floorHeight = 3.0
    /// Extra climb beyond a floor height before a floor is counted during a climb, m.
    public var floorMargin = 0.5
    /// Smallest settled change that counts as a level, m.
    public var minimumFloorChange = 1.5
    /// Length of one averaging bin of the level track, s.
    public var binDuration = 1.0
    /// Span over which the track's slope is measured, s.
    public var slopeWindow = 4.0
    /// Largest |slope| that counts as settled, m/s.
    public var settledSlope = 0.04
    /// How long the slope must stay settled before a change is closed, s.
    public var settleDuration = 3.0
    /// Longest gap between steps that still counts as walking, s.
    public var walkingGap = 2.0
    /// Share of a change's duration that must be walked for it to count.
    public var walkedFraction = 0.5
    public init() {}
    public static let `default` = Parameters()
  }

  /// A change of the floor counts.
  public struct Change: Sendable, Equatable {
    /// Floors added to ``FloorCounter/floorsAscended`` by this reading.
    public var ascended: Int
    /// Floors added to ``FloorCounter/floorsDescended`` by this reading.
    public var descended: Int
  }

  public let parameters: Parameters
  /// Floors climbed on foot so far.
  public private(set) var floorsAscended = 0
  /// Floors descended on foot so far.
  public private(set) var floorsDescended = 0

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
  private var changeWalkedTime = 0.0
  private var changeTotalTime = 0.0
  private var lastBinTime: Double?
  private var lastStepTime = -Double.infinity

  public init(parameters: Parameters = .default) {
    self.parameters = parameters
  }

  /// Notes a step at `time` (s, the barometer's clock): floors only count while walking.
  public mutating func noteStep(time: Double) {
    if time.isFinite { lastStepTime = Swift.max(lastStepTime, time) }
  }

  /// Feeds one barometer reading (`time` s, `pressure` kPa); returns the floors counted by it, if
  /// any. Readings outside ``BarometricAltitude/plausiblePressureRange`` (not finite, not
  /// positive, or physically impossible) are refused and leave the level track as it was: one
  /// absurd height averaged into a bin would count floors that were never climbed.
  public mutating func process(time: Double, pressure: Double) -> Change? {
    guard time.isFinite, BarometricAltitude.isPlausible(pressure: pressure) else { return nil }
    let height = BarometricAltitude.height(atPressure: pressure)
    guard let start = binStart else {
      binStart = time
      binSum = height
      binCount = 1
      return nil
    }
    if time - start < parameters.binDuration {
      binSum += height
      binCount += 1
      return nil
    }
    let mean = binSum / Double(binCount)
    let binTime = start + parameters.binDuration
    binStart = time
    binSum = height
    binCount = 1
    return closeBin(mean: mean, time: binTime)
  }

  private mutating func closeBin(mean: Double, time: Double) -> Change? {
    bins.append(mean)
    // The slope spans whole bins; the ring holds 16, and the oldest median needs three of them.
    let binsPerSlope = Swift.min(
      BinRing.capacity - 3,
      Swift.max(
        1, Int((parameters.slopeWindow / Swift.max(parameters.binDuration, 1e-3)).rounded())))
    guard bins.count >= 3 else {
      if referenceHeight == nil, bins.count == 1 { referenceHeight = mean }
      lastBinTime = time
      return nil
    }
    let level = bins.medianOfLastThree
    let elapsed = lastBinTime.map { Swift.max(0, time - $0) } ?? parameters.binDuration
    lastBinTime = time
    guard bins.count >= binsPerSlope + 3 else {
      referenceHeight = level
      return nil
    }
    let slope = (level - bins.medianOfThree(endingAt: binsPerSlope)) / parameters.slopeWindow
    let walking = time - lastStepTime <= parameters.walkingGap
    var reference = referenceHeight ?? level
    var change = Change(ascended: 0, descended: 0)

    if abs(slope) >= parameters.settledSlope {
      if !changing {
        changing = true
        changeWalkedTime = 0
        changeTotalTime = 0
      }
      settledSince = nil
    } else if changing {
      if settledSince == nil { settledSince = time }
    }

    if changing {
      changeTotalTime += elapsed
      if walking { changeWalkedTime += elapsed }
      let walked = changeWalkedTime >= parameters.walkedFraction * changeTotalTime
      if walked && walking {
        // Count whole floors while the climb goes on.
        let step = parameters.floorHeight
        while level - reference >= step + parameters.floorMargin {
          reference += step
          change.ascended += 1
        }
        while reference - level >= step + parameters.floorMargin {
          reference -= step
          change.descended += 1
        }
      }
      if let since = settledSince, time - since >= parameters.settleDuration {
        let remainder = level - reference
        if walked, abs(remainder) >= parameters.minimumFloorChange {
          let floors = Swift.max(1, Int((abs(remainder) / parameters.floorHeight).rounded()))
          if remainder > 0 { change.ascended += floors } else { change.descended += floors }
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
    floorsAscended += change.ascended
    floorsDescended += change.descended
    return change.ascended + change.descended > 0 ? change : nil
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
