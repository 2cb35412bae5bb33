// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Steps, distance and floors over a time window, from ``CMPedometer``.
///
/// Live updates carry cumulative totals from the start date given to
/// ``CMPedometer/startUpdates(from:withHandler:)``; queries carry the totals of the queried window.
/// Units: distance in metres, pace in seconds per metre, cadence in steps per second. Floors are
/// climbed on foot (about 3 m each) and are `nil` when floor counting is not available.
open class CMPedometerData: NSObject, NSCopying, NSSecureCoding {
  private let storedStartDate: Date
  private let storedEndDate: Date
  private let storedNumberOfSteps: Int
  private let storedDistance: NSNumber?
  private let storedFloorsAscended: NSNumber?
  private let storedFloorsDescended: NSNumber?
  private let storedCurrentPace: NSNumber?
  private let storedCurrentCadence: NSNumber?
  private let storedAverageActivePace: NSNumber?

  /// The start of the window.
  open var startDate: Date { storedStartDate }
  /// The end of the window.
  open var endDate: Date { storedEndDate }
  /// Steps taken in the window.
  open var numberOfSteps: NSNumber { NSNumber(value: storedNumberOfSteps) }
  /// Estimated distance walked or run in the window, m.
  open var distance: NSNumber? { storedDistance }
  /// Floors climbed on foot in the window; `nil` without floor counting.
  open var floorsAscended: NSNumber? { storedFloorsAscended }
  /// Floors descended on foot in the window; `nil` without floor counting.
  open var floorsDescended: NSNumber? { storedFloorsDescended }
  /// The current pace, s/m; `nil` for queries, before it is known and once walking paused (about
  /// 2 s after the last step was reported).
  open var currentPace: NSNumber? { storedCurrentPace }
  /// The current cadence, steps/s; `nil` for queries, before it is known and once walking paused
  /// (about 2 s after the last step was reported).
  open var currentCadence: NSNumber? { storedCurrentCadence }
  /// Time spent walking or running over distance in the window, s/m; `nil` without distance.
  open var averageActivePace: NSNumber? { storedAverageActivePace }

  /// An empty window at the reference date. Apps normally receive these from ``CMPedometer``.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedStartDate = Date(timeIntervalSinceReferenceDate: 0)
    storedEndDate = Date(timeIntervalSinceReferenceDate: 0)
    storedNumberOfSteps = 0
    storedDistance = nil
    storedFloorsAscended = nil
    storedFloorsDescended = nil
    storedCurrentPace = nil
    storedCurrentCadence = nil
    storedAverageActivePace = nil
    super.init()
  }

  /// Creates pedometer data. An addition to Apple's API, for tests and mocks.
  public init(
    startDate: Date, endDate: Date, numberOfSteps: Int, distance: Double? = nil,
    floorsAscended: Int? = nil, floorsDescended: Int? = nil, currentPace: Double? = nil,
    currentCadence: Double? = nil, averageActivePace: Double? = nil
  ) {
    storedStartDate = startDate
    storedEndDate = endDate
    storedNumberOfSteps = numberOfSteps
    storedDistance = distance.map { NSNumber(value: $0) }
    storedFloorsAscended = floorsAscended.map { NSNumber(value: $0) }
    storedFloorsDescended = floorsDescended.map { NSNumber(value: $0) }
    storedCurrentPace = currentPace.map { NSNumber(value: $0) }
    storedCurrentCadence = currentCadence.map { NSNumber(value: $0) }
    storedAverageActivePace = averageActivePace.map { NSNumber(value: $0) }
    super.init()
  }

  // MARK: NSCopying

  /// Returns `self`: pedometer data is immutable.
  open func copy(with zone: NSZone? = nil) -> Any { self }

  // MARK: NSSecureCoding

  open class var supportsSecureCoding: Bool { true }

  open func encode(with coder: NSCoder) {
    coder.encodeDate(storedStartDate, forKey: "startDate")
    coder.encodeDate(storedEndDate, forKey: "endDate")
    coder.encode(storedNumberOfSteps, forKey: "numberOfSteps")
    coder.encodeOptionalNumber(storedDistance, forKey: "distance")
    coder.encodeOptionalNumber(storedFloorsAscended, forKey: "floorsAscended")
    coder.encodeOptionalNumber(storedFloorsDescended, forKey: "floorsDescended")
    coder.encodeOptionalNumber(storedCurrentPace, forKey: "currentPace")
    coder.encodeOptionalNumber(storedCurrentCadence, forKey: "currentCadence")
    coder.encodeOptionalNumber(storedAverageActivePace, forKey: "averageActivePace")
  }

  /// Decodes pedometer data; `nil` when the archive's floors are not whole, non-negative counts.
  public required init?(coder: NSCoder) {
    // Floors are whole numbers: decoded as integers again, and an archive that holds something
    // else for them (NaN, a fraction, a negative) is refused rather than given absurd floors.
    guard let floorsAscended = coder.decodeOptionalCount(forKey: "floorsAscended"),
      let floorsDescended = coder.decodeOptionalCount(forKey: "floorsDescended")
    else { return nil }
    storedStartDate = coder.decodeDate(forKey: "startDate")
    storedEndDate = coder.decodeDate(forKey: "endDate")
    storedNumberOfSteps = coder.decodeInteger(forKey: "numberOfSteps")
    storedDistance = coder.decodeOptionalNumber(forKey: "distance")
    storedFloorsAscended = floorsAscended
    storedFloorsDescended = floorsDescended
    storedCurrentPace = coder.decodeOptionalNumber(forKey: "currentPace")
    storedCurrentCadence = coder.decodeOptionalNumber(forKey: "currentCadence")
    storedAverageActivePace = coder.decodeOptionalNumber(forKey: "averageActivePace")
    super.init()
  }

  open override var description: String {
    var parts = ["steps \(storedNumberOfSteps)"]
    if let storedDistance {
      parts.append(String(format: "distance %.1f m", storedDistance.doubleValue))
    }
    if let up = storedFloorsAscended, let down = storedFloorsDescended {
      parts.append("floors +\(up.intValue) -\(down.intValue)")
    }
    if let storedCurrentCadence {
      parts.append(String(format: "cadence %.2f steps/s", storedCurrentCadence.doubleValue))
    }
    if let storedCurrentPace {
      parts.append(String(format: "pace %.2f s/m", storedCurrentPace.doubleValue))
    }
    return "<CMPedometerData \(storedStartDate.logDescription) – \(storedEndDate.logDescription): "
      + parts.joined(separator: ", ") + ">"
  }
}
