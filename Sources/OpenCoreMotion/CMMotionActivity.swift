// SPDX-License-Identifier: Apache-2.0

import Foundation

/// What the person was doing from ``startDate`` on: stationary, walking, running, in a vehicle,
/// cycling, or unknown, with a confidence.
///
/// The flags are not mutually exclusive: a car waiting at a red light is both ``automotive`` and
/// ``stationary``, and all can be `false` for motion that matches none of them.
open class CMMotionActivity: CMLogItem {
  private let flags: UInt8
  private let storedStartDate: Date
  private let storedConfidence: CMMotionActivityConfidence

  private static let stationaryBit: UInt8 = 1 << 0
  private static let walkingBit: UInt8 = 1 << 1
  private static let runningBit: UInt8 = 1 << 2
  private static let automotiveBit: UInt8 = 1 << 3
  private static let cyclingBit: UInt8 = 1 << 4
  private static let unknownBit: UInt8 = 1 << 5

  /// The device is not moving.
  open var stationary: Bool { flags & Self.stationaryBit != 0 }
  /// The person is walking.
  open var walking: Bool { flags & Self.walkingBit != 0 }
  /// The person is running.
  open var running: Bool { flags & Self.runningBit != 0 }
  /// The device is in a vehicle.
  open var automotive: Bool { flags & Self.automotiveBit != 0 }
  /// The person is cycling.
  open var cycling: Bool { flags & Self.cyclingBit != 0 }
  /// The kind of motion is not known.
  open var unknown: Bool { flags & Self.unknownBit != 0 }
  /// When this activity began (wall clock).
  open var startDate: Date { storedStartDate }
  /// How sure the classifier is.
  open var confidence: CMMotionActivityConfidence { storedConfidence }

  /// No activity at the reference date, low confidence.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    flags = 0
    storedStartDate = Date(timeIntervalSinceReferenceDate: 0)
    storedConfidence = .low
    super.init()
  }

  /// Creates an activity. An addition to Apple's API, for tests and mocks.
  public init(
    stationary: Bool = false, walking: Bool = false, running: Bool = false,
    automotive: Bool = false,
    cycling: Bool = false, unknown: Bool = false, confidence: CMMotionActivityConfidence = .low,
    startDate: Date, timestamp: TimeInterval
  ) {
    var flags: UInt8 = 0
    if stationary { flags |= Self.stationaryBit }
    if walking { flags |= Self.walkingBit }
    if running { flags |= Self.runningBit }
    if automotive { flags |= Self.automotiveBit }
    if cycling { flags |= Self.cyclingBit }
    if unknown { flags |= Self.unknownBit }
    self.flags = flags
    self.storedStartDate = startDate
    self.storedConfidence = confidence
    super.init(timestamp: timestamp)
  }

  open override func encode(with coder: NSCoder) {
    super.encode(with: coder)
    coder.encode(Int(flags), forKey: "flags")
    coder.encodeDate(storedStartDate, forKey: "startDate")
    coder.encode(storedConfidence.rawValue, forKey: "confidence")
  }

  public required init?(coder: NSCoder) {
    let rawFlags = coder.decodeInteger(forKey: "flags")
    guard (0...0x3F).contains(rawFlags),
      let confidence = CMMotionActivityConfidence(
        rawValue: coder.decodeInteger(forKey: "confidence"))
    else { return nil }
    flags = UInt8(rawFlags)
    storedStartDate = coder.decodeDate(forKey: "startDate")
    storedConfidence = confidence
    super.init(coder: coder)
  }

  /// The set flags by name, in a fixed order (`"unknown"`-only when none is set is *not* implied).
  var activityNames: [String] {
    var names: [String] = []
    if stationary { names.append("stationary") }
    if walking { names.append("walking") }
    if running { names.append("running") }
    if automotive { names.append("automotive") }
    if cycling { names.append("cycling") }
    if unknown { names.append("unknown") }
    return names
  }

  open override var description: String {
    let confidenceName = ["low", "medium", "high"][storedConfidence.rawValue]
    return
      "<CMMotionActivity \(activityNames.joined(separator: "+")) (\(confidenceName)) since \(storedStartDate.logDescription)>"
  }
}
