// SPDX-License-Identifier: Apache-2.0

import Foundation

/// A change in the person's walking or running: a pause or a resumption.
open class CMPedometerEvent: NSObject, NSCopying, NSSecureCoding {
  private let storedDate: Date
  private let storedType: CMPedometerEventType

  /// When the change happened.
  open var date: Date { storedDate }
  /// Whether activity paused or resumed.
  open var type: CMPedometerEventType { storedType }

  /// A pause at the reference date. Apps normally receive events from ``CMPedometer``.
  ///
  /// Designated, as `NSObject`'s `init()` is on Apple's platforms: a mock subclass can call
  /// `super.init()`.
  public override init() {
    storedDate = Date(timeIntervalSinceReferenceDate: 0)
    storedType = .pause
    super.init()
  }

  /// Creates an event. An addition to Apple's API, for tests and mocks.
  public init(date: Date, type: CMPedometerEventType) {
    storedDate = date
    storedType = type
    super.init()
  }

  /// Returns `self`: events are immutable.
  open func copy(with zone: NSZone? = nil) -> Any { self }

  open class var supportsSecureCoding: Bool { true }

  open func encode(with coder: NSCoder) {
    coder.encodeDate(storedDate, forKey: "date")
    coder.encode(storedType.rawValue, forKey: "type")
  }

  public required init?(coder: NSCoder) {
    guard let type = CMPedometerEventType(rawValue: coder.decodeInteger(forKey: "type")) else {
      return nil
    }
    storedDate = coder.decodeDate(forKey: "date")
    storedType = type
    super.init()
  }

  open override var description: String {
    "<CMPedometerEvent \(storedType == .pause ? "pause" : "resume") at \(storedDate.logDescription)>"
  }
}
